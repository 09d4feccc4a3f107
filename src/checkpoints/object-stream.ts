import { ShadowGitError, type ShadowGit } from './shadow-git.js'

/**
 * Streams `git cat-file --batch` for `ids`, calling `onObject` with each object's content in order; a handler that
 * throws stops the stream (and the restore) with that error. A missing object is an error too.
 */
export function streamObjects(git: ShadowGit, ids: readonly string[], onObject: (index: number, content: Buffer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = git.start(['cat-file', '--batch'])
    const chunks: Buffer[] = []
    let held = 0
    let index = 0
    let want: number | undefined
    let failed: unknown
    const err: Buffer[] = []
    const take = (n: number): Buffer => {
      const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)
      chunks.length = 0
      const head = all.subarray(0, n)
      const rest = all.subarray(n)
      if (rest.length) chunks.push(rest)
      held = rest.length
      return head
    }
    const stop = (error: unknown) => {
      if (failed === undefined) failed = error
      child.kill()
    }
    child.stdout.on('data', (chunk: Buffer) => {
      if (failed !== undefined) return
      chunks.push(chunk)
      held += chunk.length
      try {
        for (;;) {
          if (want === undefined) {
            const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)
            chunks.length = 0
            chunks.push(all)
            const end = all.indexOf(0x0a)
            if (end < 0) return
            const header = take(end + 1).toString('latin1').trim().split(' ')
            if (header[1] === 'missing' || header.length < 3) throw new Error(`the snapshot's object ${header[0]} is missing from the checkpoint repository`)
            want = Number(header[2]) + 1
          }
          if (held < want) return
          const object = take(want).subarray(0, want - 1)
          want = undefined
          onObject(index++, object)
        }
      } catch (error) {
        stop(error)
      }
    })
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk))
    child.on('error', (error) => stop(error))
    child.on('close', (code) => {
      if (failed !== undefined) reject(failed)
      else if (code !== 0) reject(new ShadowGitError(['cat-file', '--batch'], Buffer.concat(err).toString(), code))
      else if (index < ids.length) reject(new Error(`git cat-file stopped after ${index} of ${ids.length} objects`))
      else resolve()
    })
    child.stdin.on('error', () => {})
    child.stdin.end(ids.map((id) => `${id}\n`).join(''))
  })
}
