/**
 * A classic-BPF assembler for seccomp filters: just the instructions a syscall filter needs (load a word of
 * `struct seccomp_data`, compare, bit-test, return). Jumps name labels; `assemble` resolves them to the 8-bit forward
 * offsets the kernel wants and refuses a program it could not encode. The output is `struct sock_filter[]` in host
 * byte order, which is what bwrap's `--seccomp <fd>` reads. (docs/sandbox.md says why Rein writes this itself.)
 */

/** Opcode parts from linux/filter.h. */
const BPF_LD = 0x00
const BPF_JMP = 0x05
const BPF_RET = 0x06
const BPF_W = 0x00
const BPF_ABS = 0x20
const BPF_K = 0x00
const BPF_JEQ = 0x10
const BPF_JGE = 0x30
const BPF_JSET = 0x40

/** One instruction before assembly. A jump target is a label or the next instruction (`next`). */
export type Instruction =
  | { op: 'load'; offset: number }
  | { op: 'jeq' | 'jge' | 'jset'; k: number; then: Target; else: Target }
  | { op: 'ret'; k: number }
  | { op: 'label'; name: string }

export type Target = string | 'next'

/** The most instructions a kernel filter may hold (BPF_MAXINSNS). */
export const MAX_INSTRUCTIONS = 4096

/** Each `struct sock_filter` is 8 bytes: u16 code, u8 jt, u8 jf, u32 k. */
export const INSTRUCTION_BYTES = 8

export function assemble(program: Instruction[]): Buffer {
  const labels = new Map<string, number>()
  const real: Exclude<Instruction, { op: 'label' }>[] = []
  for (const instruction of program) {
    if (instruction.op === 'label') {
      if (labels.has(instruction.name)) throw new Error(`seccomp program: label ${instruction.name} is defined twice`)
      labels.set(instruction.name, real.length)
    } else real.push(instruction)
  }
  if (real.length > MAX_INSTRUCTIONS) throw new Error(`seccomp program: ${real.length} instructions exceed the kernel's ${MAX_INSTRUCTIONS}`)
  const last = real[real.length - 1]
  if (!last || last.op !== 'ret') throw new Error('seccomp program: the last instruction must return a verdict')
  const out = Buffer.alloc(real.length * INSTRUCTION_BYTES)
  real.forEach((instruction, index) => {
    const at = index * INSTRUCTION_BYTES
    let code: number
    let jt = 0
    let jf = 0
    switch (instruction.op) {
      case 'load':
        code = BPF_LD | BPF_W | BPF_ABS
        break
      case 'ret':
        code = BPF_RET | BPF_K
        break
      default: {
        code = BPF_JMP | BPF_K | { jeq: BPF_JEQ, jge: BPF_JGE, jset: BPF_JSET }[instruction.op]
        jt = offsetTo(instruction.then, index, labels)
        jf = offsetTo(instruction.else, index, labels)
      }
    }
    out.writeUInt16LE(code, at)
    out.writeUInt8(jt, at + 2)
    out.writeUInt8(jf, at + 3)
    const k = instruction.op === 'load' ? instruction.offset : instruction.k
    out.writeUInt32LE(k >>> 0, at + 4)
  })
  return out
}

/** A jump skips `offset` instructions after the jump itself; classic BPF only jumps forward, at most 255. */
function offsetTo(target: Target, from: number, labels: Map<string, number>): number {
  if (target === 'next') return 0
  const to = labels.get(target)
  if (to === undefined) throw new Error(`seccomp program: jump to undefined label ${target}`)
  const offset = to - from - 1
  if (offset < 0 || offset > 255) throw new Error(`seccomp program: jump to ${target} spans ${offset} instructions (0–255 allowed)`)
  return offset
}
