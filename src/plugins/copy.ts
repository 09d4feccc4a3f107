import { cpSync, lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'

/** The most an installed plugin may hold: far beyond any published one, and a stop for a repository that is not one. */
export const COPY_LIMITS = { files: 5000, bytes: 50 * 1024 * 1024 }

/**
 * Copies a plugin folder for installation: a copy, so the installed plugin does not change when its source does.
 * Refused, before anything is written, with one sentence: a link that leads outside the folder (or nowhere), a
 * special file, an absolute link, more than `COPY_LIMITS`. Relative links inside the folder are kept as links; `.git` is not copied.
 */
export function copyPlugin(from: string, to: string): void {
  const root = realpathSync(from)
  let files = 0
  let bytes = 0
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === '.git') continue
      const path = join(dir, entry.name)
      const shown = relative(root, path)
      if (entry.isSymbolicLink()) {
        let target: string
        try {
          target = realpathSync(path)
        } catch {
          throw new Error(`The plugin's file ${shown} is a link to ${readlinkSync(path)}, which does not exist; Rein does not install it.`)
        }
        if (!within(target, root)) throw new Error(`The plugin's file ${shown} is a link to ${target}, outside the plugin; Rein does not install it.`)
        // An absolute link would point back at the source folder from the copy.
        if (isAbsolute(readlinkSync(path))) throw new Error(`The plugin's file ${shown} is an absolute link; Rein installs only relative links inside the plugin.`)
        continue
      }
      if (entry.isDirectory()) walk(path)
      else if (entry.isFile()) {
        files += 1
        bytes += lstatSync(path).size
        if (files > COPY_LIMITS.files || bytes > COPY_LIMITS.bytes) {
          throw new Error(`The plugin at ${root} holds more than ${COPY_LIMITS.files} files or ${COPY_LIMITS.bytes / 1024 / 1024} MiB; Rein does not install it.`)
        }
      } else throw new Error(`The plugin's file ${shown} is not a regular file (a pipe, socket or device); Rein does not install it.`)
    }
  }
  walk(root)
  cpSync(root, to, { recursive: true, verbatimSymlinks: true, filter: (src) => !relative(root, src).split(sep).includes('.git') })
}

function within(inner: string, outer: string): boolean {
  const rel = relative(outer, resolve(inner))
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep))
}
