/**
 * Syscall numbers of the architectures Rein's seccomp filter supports, from the kernel's
 * `arch/x86/entry/syscalls/syscall_64.tbl` (x86_64) and `include/uapi/asm-generic/unistd.h` (aarch64). Only the
 * calls the filter inspects are listed. `AUDIT_ARCH_*` values are from `linux/audit.h`.
 */

export type SeccompArch = 'x64' | 'arm64'

export interface ArchFacts {
  /** The `arch` word of `struct seccomp_data` for this ABI. */
  auditArch: number
  /** x86_64 only: syscalls with this bit set are the x32 ABI, which the filter refuses. */
  x32Bit?: number
  numbers: Record<DeniedSyscall | InspectedSyscall, number | undefined>
}

/** Refused outright with EPERM. */
export const DENIED_SYSCALLS = [
  'ptrace', 'process_vm_readv', 'process_vm_writev', 'process_madvise', 'pidfd_getfd', 'kcmp',
  'io_uring_setup', 'io_uring_enter', 'io_uring_register',
  'kexec_load', 'kexec_file_load', 'init_module', 'finit_module', 'delete_module', 'reboot', 'swapon', 'swapoff', 'acct',
  'bpf', 'perf_event_open', 'userfaultfd', 'syslog', 'quotactl', 'lookup_dcookie',
  'keyctl', 'add_key', 'request_key',
  'mount', 'umount2', 'pivot_root', 'chroot', 'unshare', 'setns',
  'open_tree', 'move_mount', 'fsopen', 'fsconfig', 'fsmount', 'fspick', 'mount_setattr',
  'open_by_handle_at', 'name_to_handle_at',
  'iopl', 'ioperm', 'uselib',
] as const

/** Allowed only with some arguments (see filter.ts). */
export const INSPECTED_SYSCALLS = ['clone', 'clone3', 'personality', 'ioctl'] as const

export type DeniedSyscall = (typeof DENIED_SYSCALLS)[number]
export type InspectedSyscall = (typeof INSPECTED_SYSCALLS)[number]

export const ARCHES: Record<SeccompArch, ArchFacts> = {
  x64: {
    auditArch: 0xc000003e,
    x32Bit: 0x40000000,
    numbers: {
      ptrace: 101, process_vm_readv: 310, process_vm_writev: 311, process_madvise: 440, pidfd_getfd: 438, kcmp: 312,
      io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427,
      kexec_load: 246, kexec_file_load: 320, init_module: 175, finit_module: 313, delete_module: 176, reboot: 169,
      swapon: 167, swapoff: 168, acct: 163,
      bpf: 321, perf_event_open: 298, userfaultfd: 323, syslog: 103, quotactl: 179, lookup_dcookie: 212,
      keyctl: 250, add_key: 248, request_key: 249,
      mount: 165, umount2: 166, pivot_root: 155, chroot: 161, unshare: 272, setns: 308,
      open_tree: 428, move_mount: 429, fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433, mount_setattr: 442,
      open_by_handle_at: 304, name_to_handle_at: 303,
      iopl: 172, ioperm: 173, uselib: 134,
      clone: 56, clone3: 435, personality: 135, ioctl: 16,
    },
  },
  arm64: {
    auditArch: 0xc00000b7,
    numbers: {
      ptrace: 117, process_vm_readv: 270, process_vm_writev: 271, process_madvise: 440, pidfd_getfd: 438, kcmp: 272,
      io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427,
      kexec_load: 104, kexec_file_load: 294, init_module: 105, finit_module: 273, delete_module: 106, reboot: 142,
      swapon: 224, swapoff: 225, acct: 89,
      bpf: 280, perf_event_open: 241, userfaultfd: 282, syslog: 116, quotactl: 60, lookup_dcookie: 18,
      keyctl: 219, add_key: 217, request_key: 218,
      mount: 40, umount2: 39, pivot_root: 41, chroot: 51, unshare: 97, setns: 268,
      open_tree: 428, move_mount: 429, fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433, mount_setattr: 442,
      open_by_handle_at: 265, name_to_handle_at: 264,
      iopl: undefined, ioperm: undefined, uselib: undefined,
      clone: 220, clone3: 435, personality: 92, ioctl: 29,
    },
  },
}
