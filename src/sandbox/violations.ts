import { sep } from 'node:path'
import { describeRefusal, type Refusal } from './proxy/hosts.js'

/**
 * One short note to append to a command's output when the sandbox visibly stopped something, or undefined: writes
 * refused by the read-only file system, reads of masked paths, the proxy's refusals (one sentence per host), and,
 * when no domain is allowed (`network` false), a command that tried the network.
 * It reads the output the way a person would; a command that hides its errors leaves nothing to summarise.
 */
export function violationNote(output: string, masked: readonly string[], refusals: readonly Refusal[], network = true): string | undefined {
  const sentences: string[] = []
  const readOnly = new Set<string>()
  const hidden = new Set<string>()
  const setup = output.match(/^bwrap: (.+)$/m)?.[1]
  if (setup) sentences.push(`The sandbox could not set up this command (bwrap: ${setup}).`)
  for (const line of output.split('\n')) {
    const path = line.match(/(?:^|[\s'"`‘(])(\/[^\s:'"`’)]*)/)?.[1] ?? line.match(/(?:^|[\s'"`‘(])(~\/[^\s:'"`’)]*)/)?.[1]
    if (/Read-only file system|EROFS/.test(line)) readOnly.add(path ?? '')
    else if (path && /No such file|Permission denied|EACCES|ENOENT/.test(line) && masked.some((m) => path === m || path.startsWith(m + sep))) hidden.add(path)
  }
  if (readOnly.size) {
    const named = [...readOnly].filter(Boolean).slice(0, 3)
    const what = named.length ? named.join(', ') : 'the file system'
    sentences.push(
      `The sandbox kept ${what} read-only; writable are the workspace (not its .git/hooks, .git/config or agent config), /tmp and what the user adds to sandbox.filesystem.allowWrite.`,
    )
  }
  if (hidden.size) sentences.push(`The sandbox hides ${[...hidden].slice(0, 3).join(', ')} (credentials and Read deny rules are masked).`)
  if (!network && /Could not resolve host|Temporary failure in name resolution|Name or service not known|getaddrinfo E|Network is unreachable|ENETUNREACH|EAI_AGAIN/.test(output)) {
    sentences.push('The sandbox has no network: only the user can allow domains, with sandbox.network.allowedDomains.')
  }
  const seen = new Set<string>()
  for (const refusal of refusals) {
    if (seen.has(refusal.host)) continue
    seen.add(refusal.host)
    sentences.push(describeRefusal(refusal))
  }
  return sentences.length ? `[sandbox] ${sentences.join(' ')}` : undefined
}
