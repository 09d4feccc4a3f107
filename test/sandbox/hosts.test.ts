import { describe, expect, it } from 'vitest'
import { isPublicAddress } from '../../src/sandbox/proxy/addresses.js'
import { canonicalHost, hostAllowed } from '../../src/sandbox/proxy/hosts.js'

describe('host names the proxy accepts', () => {
  it.each(['127.0.0.1', '[::1]', '::ffff:127.0.0.1', '2130706433', '0x7f.1', '017700000001'])('refuses the IP literal %s', (host) => {
    expect(canonicalHost(host)).toEqual({ host, reason: 'ip-literal' })
  })

  it.each(['user@example.com', 'exa mple.com', 'example..com', '%65xample.com', 'example.com:80'])('refuses the authority %s', (host) => {
    expect(canonicalHost(host)).toMatchObject({ reason: 'bad-authority' })
  })

  it('lower-cases and drops one trailing dot', () => {
    expect(canonicalHost('API.Example.COM.')).toEqual({ host: 'api.example.com' })
  })

  it('matches exact names and explicit wildcards only', () => {
    const rules = ['example.com', '*.github.com']
    expect(hostAllowed('example.com', rules)).toBe(true)
    expect(hostAllowed('www.example.com', rules)).toBe(false)
    expect(hostAllowed('evilexample.com', rules)).toBe(false)
    expect(hostAllowed('api.github.com', rules)).toBe(true)
    expect(hostAllowed('a.b.github.com', rules)).toBe(true)
    expect(hostAllowed('github.com', rules)).toBe(false)
    expect(hostAllowed('evilgithub.com', rules)).toBe(false)
    expect(hostAllowed('github.com.evil.example', rules)).toBe(false)
  })
})

describe('addresses the proxy connects to', () => {
  it.each([
    '0.0.0.0', '10.1.2.3', '100.64.0.1', '127.0.0.1', '169.254.169.254', '172.16.0.1', '172.31.255.255', '192.168.1.1',
    '192.0.0.8', '198.18.0.1', '224.0.0.1', '255.255.255.255',
    '::', '::1', '::ffff:10.0.0.1', '::ffff:8.8.8.8', '::127.0.0.1', '64:ff9b::a00:1', '2002:a00:1::', '2001:0:1::1', 'fc00::1', 'fd12::1',
    'fe80::1', 'fec0::1', 'ff02::1', 'not-an-address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false)
  })

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '2a00:1450::1'])('accepts the public %s', (address) => {
    expect(isPublicAddress(address)).toBe(true)
  })
})
