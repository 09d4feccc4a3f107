import { assemble, type Instruction } from './bpf.js'
import { ARCHES, DENIED_SYSCALLS, type SeccompArch } from './syscalls.js'

/** Return values from linux/seccomp.h. */
const RET_ALLOW = 0x7fff0000
const RET_KILL_PROCESS = 0x80000000
const RET_ERRNO = 0x00050000
const EPERM = 1
const ENOSYS = 38

/** Offsets into `struct seccomp_data`: nr, arch, then six 64-bit args; the low word of an arg is first (little-endian). */
const NR = 0
const ARCH = 4
const argLow = (index: number) => 16 + 8 * index

/** clone flags that make a new namespace (linux/sched.h): inside the sandbox they would hand back capabilities. */
const CLONE_NEW_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
/** personality() values that change nothing dangerous: PER_LINUX, PER_LINUX32, and the query 0xffffffff. */
const HARMLESS_PERSONALITIES = [0x0, 0x8, 0xffffffff]
/** ioctl requests that push input into a terminal or console (TIOCSTI, TIOCLINUX). */
const TERMINAL_INJECTION = [0x5412, 0x541c]

export function seccompArchOf(nodeArch: string): SeccompArch | undefined {
  return nodeArch === 'x64' || nodeArch === 'arm64' ? nodeArch : undefined
}

/**
 * The program every sandboxed command runs under, as the bytes bwrap's `--seccomp` takes. What holds:
 * - a syscall from any ABI but the native one (i386 `int 0x80` on x86_64, or an arm32 compat call) kills the process,
 *   and x32 calls on x86_64 are refused, so no number below is read in the wrong table;
 * - the calls in `DENIED_SYSCALLS` fail with EPERM (ptrace, io_uring, mount and namespaces, keyrings, bpf, …);
 * - `clone` that asks for a new namespace fails with EPERM; `clone3`, whose flags sit behind a pointer the filter
 *   cannot read, fails with ENOSYS so the C library falls back to `clone`;
 * - `personality` other than the harmless values, and terminal-injection ioctls, fail with EPERM;
 * - everything else is allowed. Unix-domain sockets are allowed here and bounded by the mount namespace instead
 *   (docs/sandbox.md, "Unix sockets").
 */
export function seccompProgram(arch: SeccompArch): Instruction[] {
  const facts = ARCHES[arch]
  const n = facts.numbers
  const program: Instruction[] = [
    { op: 'load', offset: ARCH },
    { op: 'jeq', k: facts.auditArch, then: 'next', else: 'kill' },
    { op: 'load', offset: NR },
  ]
  if (facts.x32Bit !== undefined) program.push({ op: 'jge', k: facts.x32Bit, then: 'eperm', else: 'next' })
  for (const name of DENIED_SYSCALLS) {
    const number = n[name]
    if (number !== undefined) program.push({ op: 'jeq', k: number, then: 'eperm', else: 'next' })
  }
  program.push(
    { op: 'jeq', k: n.clone3!, then: 'enosys', else: 'next' },
    { op: 'jeq', k: n.clone!, then: 'clone', else: 'next' },
    { op: 'jeq', k: n.personality!, then: 'personality', else: 'next' },
    { op: 'jeq', k: n.ioctl!, then: 'ioctl', else: 'allow' },
    { op: 'label', name: 'clone' },
    { op: 'load', offset: argLow(0) },
    { op: 'jset', k: CLONE_NEW_NAMESPACES, then: 'eperm', else: 'allow' },
    { op: 'label', name: 'personality' },
    { op: 'load', offset: argLow(0) },
    ...HARMLESS_PERSONALITIES.map((k): Instruction => ({ op: 'jeq', k, then: 'allow', else: 'next' })),
    { op: 'ret', k: RET_ERRNO | EPERM },
    { op: 'label', name: 'ioctl' },
    { op: 'load', offset: argLow(1) },
    ...TERMINAL_INJECTION.map((k): Instruction => ({ op: 'jeq', k, then: 'eperm', else: 'next' })),
    { op: 'label', name: 'allow' },
    { op: 'ret', k: RET_ALLOW },
    { op: 'label', name: 'eperm' },
    { op: 'ret', k: RET_ERRNO | EPERM },
    { op: 'label', name: 'enosys' },
    { op: 'ret', k: RET_ERRNO | ENOSYS },
    { op: 'label', name: 'kill' },
    { op: 'ret', k: RET_KILL_PROCESS },
  )
  return program
}

/** The assembled filter for this machine, or undefined on an architecture Rein has no syscall table for. */
export function seccompFilter(nodeArch: string = process.arch): Buffer | undefined {
  const arch = seccompArchOf(nodeArch)
  return arch ? assemble(seccompProgram(arch)) : undefined
}
