import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'

/**
 * Addresses a model-driven fetch may not reach unless the settings allow it: loopback, private, link-local,
 * carrier-grade NAT, multicast, reserved and unspecified ranges, in IPv4 and IPv6. An IPv6 address that embeds an
 * IPv4 one (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`) is judged by the embedded address.
 */
const blocked = new BlockList()
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4')
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6')
}

/** The IPv4 address an IPv6 address carries (mapped or NAT64), if any. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase()
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower)
  if (dotted) return dotted[1]
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower)
  if (!hex) return undefined
  const hi = parseInt(hex[1], 16)
  const lo = parseInt(hex[2], 16)
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 4) return blocked.check(address, 'ipv4')
  if (family === 6) {
    const v4 = embeddedIpv4(address)
    return v4 ? blocked.check(v4, 'ipv4') : blocked.check(address, 'ipv6')
  }
  return true
}

export interface ResolvedHost {
  address: string
  family: 4 | 6
}

/**
 * Resolves `hostname` and checks every address it has. Refusing when any address is private (not just the first)
 * means a host cannot pass the check with a public address and then be reached on a private one; the caller
 * connects to the returned address, so a second DNS answer (rebinding) is never used.
 */
export async function resolvePublic(
  hostname: string,
  allowPrivate: boolean,
): Promise<{ ok: true; host: ResolvedHost } | { ok: false; reason: string }> {
  const bare = hostname.replace(/^\[|\]$/g, '')
  let addresses: ResolvedHost[]
  if (isIP(bare)) addresses = [{ address: bare, family: isIP(bare) as 4 | 6 }]
  else {
    try {
      addresses = (await lookup(bare, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family as 4 | 6 }))
    } catch {
      return { ok: false, reason: `the host ${bare} could not be resolved` }
    }
  }
  if (addresses.length === 0) return { ok: false, reason: `the host ${bare} has no addresses` }
  if (!allowPrivate) {
    const bad = addresses.find((a) => isPrivateAddress(a.address))
    if (bad) return { ok: false, reason: `${bare} resolves to ${bad.address}, a private or loopback address` }
  }
  return { ok: true, host: addresses[0] }
}
