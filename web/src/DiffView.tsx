/** A unified diff, added lines and removed lines marked. */
export function DiffView({ diff }: { diff: string }) {
  return (
    <pre class="diff">
      {diff.split('\n').map((line, i) => (
        <span key={i} class={line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : ''}>
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  )
}
