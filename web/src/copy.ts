/** How long a copy button says "Copied" (ms). */
const SHOWN_MS = 1500

/** Puts `text` on the clipboard; false when the browser refused (no permission, or the page is not focused). */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text)
    return true
  } catch {
    // Refused by the browser: the button says so instead of "Copied".
    return false
  }
}

/**
 * Copy buttons inside rendered Markdown (`data-copy-code`, added by markdown.ts to every code block) are plain HTML,
 * so one listener on the document handles them all: it copies the block's text and shows "Copied" on the button.
 */
export function handleCodeCopies(): void {
  document.addEventListener('click', (event) => {
    const button = (event.target as Element | null)?.closest?.('button[data-copy-code]')
    if (!(button instanceof HTMLButtonElement)) return
    const code = button.nextElementSibling?.textContent ?? ''
    void copyText(code).then((ok) => {
      button.textContent = ok ? 'Copied' : 'Copy failed'
      button.classList.toggle('done', ok)
      setTimeout(() => {
        button.textContent = 'Copy'
        button.classList.remove('done')
      }, SHOWN_MS)
    })
  })
}
