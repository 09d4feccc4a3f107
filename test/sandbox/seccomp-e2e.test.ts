import { spawnSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { assemble } from '../../src/sandbox/seccomp/bpf.js'
import { seccompFilter } from '../../src/sandbox/seccomp/filter.js'
import { requireBwrap } from './bwrap-required.js'

const bwrap = requireBwrap()
const dir = mkdtempSync(join(tmpdir(), 'seccomp-'))
const filterFile = join(dir, 'filter.bpf')
writeFileSync(filterFile, seccompFilter()!)

/** Runs python under bwrap with only the seccomp filter (no other confinement), so each test sees the filter alone. */
function underFilter(python: string): { status: number | null; signal: NodeJS.Signals | null; out: string } {
  const fd = openSync(filterFile, 'r')
  try {
    const r = spawnSync('bwrap', ['--dev-bind', '/', '/', '--die-with-parent', '--seccomp', '3', '--', 'python3', '-c', python], {
      stdio: ['ignore', 'pipe', 'pipe', fd],
      encoding: 'utf8',
    })
    return { status: r.status, signal: r.signal, out: `${r.stdout}${r.stderr}`.trim() }
  } finally {
    closeSync(fd)
  }
}

const syscall = (nr: number, ...args: number[]) =>
  `import ctypes; libc = ctypes.CDLL(None, use_errno=True); libc.syscall.restype = ctypes.c_long; ` +
  `r = libc.syscall(${[nr, ...args].map((a) => `ctypes.c_long(${a})`).join(', ')}); print(r, ctypes.get_errno())`

const x64 = process.arch === 'x64'

describe.runIf(bwrap.available)('the seccomp filter under a real kernel', () => {
  it.runIf(x64).each([
    ['ptrace', 101],
    ['process_vm_readv', 310],
    ['io_uring_setup', 425],
    ['bpf', 321],
    ['perf_event_open', 298],
    ['keyctl', 250],
    ['add_key', 248],
    ['userfaultfd', 323],
    ['mount', 165],
    ['unshare', 272],
    ['setns', 308],
    ['kexec_load', 246],
  ])('%s fails with EPERM', (_name, nr) => {
    expect(underFilter(syscall(nr, 0, 0, 0, 0, 0)).out).toBe('-1 1')
  })

  it.runIf(x64)('clone asking for a new user namespace fails with EPERM', () => {
    expect(underFilter(syscall(56, 0x10000000 | 17, 0, 0, 0, 0)).out).toBe('-1 1')
  })

  it.runIf(x64)('clone3 fails with ENOSYS so the C library falls back to clone', () => {
    expect(underFilter(syscall(435, 0, 0)).out).toBe('-1 38')
  })

  it.runIf(x64)('personality that turns off address randomisation fails, the query still answers', () => {
    expect(underFilter(syscall(135, 0x0040000)).out).toBe('-1 1')
    expect(underFilter(syscall(135, 0xffffffff)).out).not.toMatch(/^-1/)
  })

  it.runIf(x64)('TIOCSTI, pushing input into a terminal, fails with EPERM', () => {
    expect(underFilter(syscall(16, 0, 0x5412, 0)).out).toBe('-1 1')
  })

  it.runIf(x64)('an x32 syscall is refused', () => {
    expect(underFilter(syscall(0x40000000 | 39)).out).toBe('-1 1')
  })

  it.runIf(x64)('a 32-bit int 0x80 syscall kills the process', () => {
    // mov eax, 20 (getpid in the i386 table); int 0x80; ret
    const code =
      'import ctypes, mmap; m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ|mmap.PROT_WRITE|mmap.PROT_EXEC); ' +
      "m.write(bytes([0xb8,0x14,0,0,0,0xcd,0x80,0xc3])); " +
      'f = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(m))); print(f())'
    // A kernel built without 32-bit emulation (IA32_EMULATION off, or ia32_emulation=0) faults on int 0x80 before
    // any filter sees it: there the call cannot run at all, so the filter only has to keep it from answering.
    const unconfined = spawnSync('python3', ['-c', code], { encoding: 'utf8' })
    const r = underFilter(code)
    if (unconfined.status === 0) expect(r.signal ?? r.status).toSatisfy((v: unknown) => v === 'SIGSYS' || v === 128 + 31)
    else expect(r.out).not.toMatch(/^\d+$/m)
    expect(r.status).not.toBe(0)
  })

  it('ordinary work still runs: files, pipes, sockets, threads and child processes', () => {
    const r = underFilter(
      'import socket, subprocess, threading, os; a, b = socket.socketpair(socket.AF_UNIX); a.send(b"x"); ' +
        't = threading.Thread(target=lambda: None); t.start(); t.join(); ' +
        's = socket.socket(socket.AF_INET); s.close(); ' +
        'print(b.recv(1).decode(), subprocess.run(["echo", "ok"], capture_output=True, text=True).stdout.strip())',
    )
    expect(r.out).toBe('x ok')
  })
})

describe('the seccomp assembler', () => {
  it('refuses a jump to a label it does not know', () => {
    expect(() => assemble([{ op: 'jeq', k: 1, then: 'nowhere', else: 'next' }, { op: 'ret', k: 0 }])).toThrow(/undefined label nowhere/)
  })

  it('refuses a program that does not end in a verdict', () => {
    expect(() => assemble([{ op: 'load', offset: 0 }])).toThrow(/last instruction must return/)
  })

  it('encodes one instruction as code, jt, jf and k in eight bytes', () => {
    const bytes = assemble([{ op: 'jeq', k: 0xc000003e, then: 'next', else: 'end' }, { op: 'label', name: 'end' }, { op: 'ret', k: 0x7fff0000 }])
    expect([...bytes.subarray(0, 8)]).toEqual([0x15, 0, 0, 0, 0x3e, 0, 0, 0xc0])
  })
})
