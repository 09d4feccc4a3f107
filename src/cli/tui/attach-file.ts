import { homedir } from 'node:os'
import { dirname, relative, resolve } from 'node:path'
import { readGated } from '../../fs/read-gate.js'
import { createReadGuard } from '../../permissions/read-guard.js'
import { parseRules } from '../../permissions/rules.js'
import { IMAGE_BYTE_CAP, imageType, READ_BYTE_CAP } from '../../tools/read.js'
import type { Attachment } from './attachments.js'

/**
 * Reads a file an `@path` in a prompt names, with the checks a `read` call gets: the read guard (a `Read` deny rule,
 * Rein's home, a process's environment) and the read gate (a regular file whose real path stays in the workspace,
 * read without following a final link, at most a cap of bytes: 256 KiB of text, 5 MiB of image). Never throws: what
 * cannot be attached says why in one clause.
 */
export function readAttachment(cwd: string, path: string, options: { reinHome: string; deny: readonly string[] }): Attachment {
  const guard = createReadGuard({
    deny: parseRules(options.deny),
    allow: () => [],
    match: { cwd, home: homedir() },
    reinHome: options.reinHome,
  })
  const absolute = resolve(cwd, path)
  // A workspace file must stay in the workspace; an absolute image path (a dropped screenshot) in its own folder.
  const inside = !relative(cwd, absolute).startsWith('..')
  const folder = inside ? { dir: cwd, base: cwd } : { dir: dirname(absolute), base: dirname(absolute) }
  const file = readGated(absolute, { folder, refuses: guard.refuses, maxBytes: IMAGE_BYTE_CAP })
  if (file.kind === 'absent') return { kind: 'absent', path }
  if (file.kind === 'skipped') return { kind: 'skipped', path, reason: file.reason }
  const mimeType = imageType(file.bytes.subarray(0, 16))
  if (mimeType) return { kind: 'image', path, mimeType, data: file.bytes.toString('base64') }
  if (file.bytes.includes(0)) return { kind: 'skipped', path, reason: 'it is a binary file' }
  if (file.bytes.length > READ_BYTE_CAP) return { kind: 'skipped', path, reason: `it is over ${READ_BYTE_CAP / 1024} KiB; ask the agent to read it in parts` }
  return { kind: 'text', path, text: file.bytes.toString('utf8') }
}
