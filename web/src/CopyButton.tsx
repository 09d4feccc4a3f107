import { useState } from 'preact/hooks'
import { copyText } from './copy'
import { Icon } from './icons'

/** A button that copies `text()` and says "Copied" for a moment (or that the browser refused). */
export function CopyButton({ text, what }: { text: () => string; what: string }) {
  const [said, setSaid] = useState<'' | 'Copied' | 'Copy failed'>('')
  const copy = async (): Promise<void> => {
    setSaid((await copyText(text())) ? 'Copied' : 'Copy failed')
    setTimeout(() => setSaid(''), 1500)
  }
  return (
    <button type="button" class={`copy ghost${said === 'Copied' ? ' done' : ''}`} onClick={() => void copy()} aria-label={said || `Copy ${what}`} title={`Copy ${what}`}>
      <Icon name={said === 'Copied' ? 'check' : 'copy'} />
      <span aria-hidden="true">{said || 'Copy'}</span>
    </button>
  )
}
