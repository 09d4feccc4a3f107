import { isIP } from 'node:net'
import { isHostName } from '../policy.js'

/** Why the proxy refused a destination; `host` is what the command asked for, as it asked. */
export interface Refusal {
  host: string
  reason: 'not-allowed' | 'ip-literal' | 'bad-authority' | 'private-address' | 'host-mismatch' | 'unresolvable'
}

/**
 * The canonical form of a requested host name, or a refusal. Lower case, one trailing dot dropped; anything that is
 * not a plain DNS name is refused: IP literals in every spelling (dotted, bracketed IPv6, the integer and hex forms
 * `inet_aton` accepts), an authority with a user part, ports, percent-escapes and empty labels.
 */
export function canonicalHost(requested: string): { host: string } | Refusal {
  const raw = requested.trim()
  if (raw.includes('@')) return { host: requested, reason: 'bad-authority' }
  const host = raw.toLowerCase().replace(/\.$/, '')
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  if (isIP(bare) || /^(0x[0-9a-f]+|\d+)(\.(0x[0-9a-f]+|\d+))*$/.test(bare)) return { host: requested, reason: 'ip-literal' }
  if (!isHostName(host)) return { host: requested, reason: 'bad-authority' }
  return { host }
}

/**
 * Whether a canonical host is allowed by the (normalised) rules: an exact name matches itself only; `*.example.com`
 * matches names that end in `.example.com` with at least one more label, never `example.com` itself, and never a
 * name that merely ends in the same characters (`evilexample.com`).
 */
export function hostAllowed(host: string, rules: readonly string[]): boolean {
  return rules.some((rule) => (rule.startsWith('*.') ? host.endsWith(rule.slice(1)) && host.length > rule.length - 1 : host === rule))
}

/** The sentence the model and the user read for one refusal. */
export function describeRefusal(refusal: Refusal): string {
  const why: Record<Refusal['reason'], string> = {
    'not-allowed': 'not in sandbox.network.allowedDomains',
    'ip-literal': 'an IP address; the sandbox allows listed names only',
    'bad-authority': 'not a plain host name',
    'private-address': 'it resolves to a loopback, private or link-local address',
    'host-mismatch': 'the request named a different host than the connection',
    unresolvable: 'the name did not resolve',
  }
  return `The sandbox refused a connection to ${refusal.host} (${why[refusal.reason]}).`
}
