import { useStdin, useStdout, type DOMElement } from 'ink'
import { useRef, useState, type RefObject } from 'react'
import { outputHeight } from './caret.js'
import { editInExternalEditor, type EditOutcome } from './external-editor.js'

/** How long the one-frame difference that makes ink draw again is kept: longer than ink's 30 fps render throttle. */
const REPAINT_MS = 80

/**
 * Ctrl+L and Ctrl+G: the keys that take the screen from ink for a moment. Both end by clearing the visible screen and
 * having ink draw its live part afresh at the top.
 *
 * Ctrl+L clears the screen and keeps the history, as Claude Code does: the live frame is erased (from its first row,
 * found from where the cursor is: at the caret when it is shown there, else under the frame), the transcript still
 * on screen is scrolled up into the scrollback with newlines, and the cursor goes home. ink only writes a frame that
 * differs from its last one, so the editor draws one extra blank row for a moment (`repainting`).
 */
export function useScreenKeys(box: RefObject<DOMElement | null>, caretRow: RefObject<number | undefined>) {
  const { stdout } = useStdout()
  const { stdin } = useStdin()
  const [repainting, setRepainting] = useState(false)
  const timer = useRef<NodeJS.Timeout | undefined>(undefined)

  const repaint = () => {
    const rows = stdout.rows || 24
    const up = caretRow.current ?? outputHeight(box.current)
    stdout.write(`${up > 0 ? `\x1b[${up}A` : ''}\r\x1b[J\x1b[${rows};1H${'\n'.repeat(rows)}\x1b[H`)
    setRepainting(true)
    clearTimeout(timer.current)
    timer.current = setTimeout(() => setRepainting(false), REPAINT_MS)
  }

  const editExternally = (text: string): EditOutcome => {
    const outcome = editInExternalEditor(text, { stdin: stdin as NodeJS.ReadStream, stdout: stdout as NodeJS.WriteStream })
    repaint()
    return outcome
  }

  return { repainting, repaint, editExternally }
}
