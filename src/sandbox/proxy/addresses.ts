import { isIPv4, isIPv6 } from 'node:net'

/**
 * Whether an address is on the public internet, so a sandboxed command may reach it through the proxy. Refused:
 * IPv4 this-network, loopback, RFC 1918, CGNAT, link-local, benchmarking, the IETF block, multicast and reserved;
 * IPv6 unspecified, loopback, IPv4-mapped and -compatible, NAT64, 6to4, Teredo, ULA, link-local, site-local and
 * multicast. Anything unparsable is refused.
 */
export function isPublicAddress(address: string): boolean {
  if (isIPv4(address)) return isPublicV4(v4Bytes(address))
  if (!isIPv6(address)) return false
  const words = v6Words(address)
  if (words.slice(0, 6).every((w) => w === 0)) return false // ::, ::1 and the deprecated IPv4-compatible ::a.b.c.d
  if (words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff) return false // ::ffff:a.b.c.d
  const first = words[0]!
  if (first === 0x64 && words[1] === 0xff9b) return false // 64:ff9b::/96 NAT64
  if (first === 0x2002 || (first === 0x2001 && words[1] === 0)) return false // 6to4, Teredo
  if ((first & 0xfe00) === 0xfc00) return false // fc00::/7 unique local
  if ((first & 0xffc0) === 0xfe80 || (first & 0xffc0) === 0xfec0) return false // link-local, site-local
  if ((first & 0xff00) === 0xff00) return false // multicast
  if (first === 0x2001 && words[1] === 0xdb8) return false // documentation
  return true
}

function isPublicV4([a, b, c]: number[]): boolean {
  if (a === 0 || a === 10 || a === 127 || a! >= 224) return false
  if (a === 100 && b! >= 64 && b! < 128) return false
  if (a === 169 && b === 254) return false
  if (a === 172 && b! >= 16 && b! < 32) return false
  if (a === 192 && b === 168) return false
  if (a === 192 && b === 0 && (c === 0 || c === 2)) return false
  if (a === 198 && (b === 18 || b === 19)) return false
  if ((a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113)) return false
  return true
}

function v4Bytes(address: string): number[] {
  return address.split('.').map(Number)
}

function v6Words(address: string): number[] {
  let text = address.replace(/%.*$/, '')
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/)
  if (dotted) {
    const [a, b, c, d] = v4Bytes(dotted[1]!)
    text = text.slice(0, -dotted[1]!.length) + `${((a! << 8) | b!).toString(16)}:${((c! << 8) | d!).toString(16)}`
  }
  const [head, tail] = text.split('::') as [string, string | undefined]
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const fill = tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0')
  return [...left, ...fill, ...right].map((w) => parseInt(w, 16))
}
