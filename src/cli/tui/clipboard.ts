import { spawnSync } from 'node:child_process'
import { accessSync, constants, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { IMAGE_BYTE_CAP, imageType } from '../../tools/read.js'

/** How long a clipboard tool may take: it answers at once or is stuck (a clipboard owner that went away). */
const CLIPBOARD_TIMEOUT_MS = 5000

/** The clipboard readers tried, in order: Wayland's when a Wayland session is running, then X11's. */
const READERS = [
  { tool: 'wl-paste', args: ['--no-newline', '--type', 'image/png'], wayland: true },
  { tool: 'xclip', args: ['-selection', 'clipboard', '-t', 'image/png', '-o'], wayland: false },
] as const

export type ClipboardImage = { kind: 'image'; path: string } | { kind: 'failed'; message: string }

function onPath(tool: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue
    const candidate = join(dir, tool)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // Not in this directory: look in the next one.
    }
  }
  return undefined
}

let saved = 0
let folder: string | undefined

/**
 * Ctrl+V: the image on the clipboard, read with `wl-paste` or `xclip` (whichever is installed; Wayland's first in a
 * Wayland session), saved to a private temporary file (its folder 0700, the file 0600) whose absolute path the editor
 * inserts. The prompt then attaches it exactly as it attaches a pasted image path (attachments.ts: an absolute image
 * path attaches with or without `@`, with the read tool's checks). What cannot be pasted says why in one sentence.
 */
export function pasteClipboardImage(env: NodeJS.ProcessEnv = process.env): ClipboardImage {
  const wayland = Boolean(env.WAYLAND_DISPLAY)
  const readers = [...READERS].sort((a, b) => Number(b.wayland === wayland) - Number(a.wayland === wayland))
  const reader = readers.map((r) => ({ ...r, file: onPath(r.tool, env) })).find((r) => r.file)
  if (!reader?.file) {
    return { kind: 'failed', message: 'Pasting an image needs wl-paste (Wayland) or xclip (X11), and neither is installed; paste the image file\'s path instead.' }
  }
  const run = spawnSync(reader.file, reader.args, { env, timeout: CLIPBOARD_TIMEOUT_MS, maxBuffer: IMAGE_BYTE_CAP + 1, stdio: ['ignore', 'pipe', 'pipe'] })
  if (run.error) {
    const code = (run.error as NodeJS.ErrnoException).code
    if (code === 'ENOBUFS') return { kind: 'failed', message: `The image on the clipboard is over ${IMAGE_BYTE_CAP / 1024 / 1024} MiB; save a smaller one and paste its path.` }
    if (code === 'ETIMEDOUT') return { kind: 'failed', message: `${reader.tool} did not answer within ${CLIPBOARD_TIMEOUT_MS / 1000} s; nothing was pasted.` }
    return { kind: 'failed', message: `Could not run ${reader.tool}: ${run.error.message}.` }
  }
  const bytes = run.stdout
  const mimeType = bytes.length ? imageType(bytes.subarray(0, 16)) : undefined
  if (run.status !== 0 || !mimeType) return { kind: 'failed', message: 'The clipboard holds no image (copy one first, or paste a path).' }
  folder ??= mkdtempSync(join(tmpdir(), 'rein-clipboard-'))
  const path = join(folder, `clipboard-${++saved}.${mimeType.split('/')[1] ?? 'png'}`)
  writeFileSync(path, bytes, { mode: 0o600 })
  return { kind: 'image', path }
}
