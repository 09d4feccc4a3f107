// Shared by benches that drive the built CLI (not a bench itself: bench/run.mjs runs only *.bench.mjs files).
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const CLI = join(dirname(fileURLToPath(import.meta.url)), '../dist/cli/main.js')

/**
 * Runs `rein -p <prompt>` in `cwd` against the mock at `url` with REIN_HOME `home`; throws unless it exits 0.
 * @param {{ prompt: string, cwd: string, home: string, url: string }} options
 */
export async function runPrint({ prompt, cwd, home, url }) {
  const code = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, '-p', prompt, '--cwd', cwd], {
      env: { ...process.env, DEEPSEEK_BASE_URL: url, DEEPSEEK_API_KEY: 'bench', REIN_HOME: home },
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    child.on('error', reject)
    child.on('close', resolve)
  })
  if (code !== 0) throw new Error(`rein -p exited with ${code}`)
}
