// Prompts avoided by the sandbox: one scripted session of 30 bash calls of ordinary work (reading, building,
// testing, editing files, git) run by the built CLI (`rein -p`, default mode, no allow rules) against the mock model,
// once with --no-sandbox and once with --sandbox. Counts the calls that needed the user's approval (in print mode
// nobody can give it, so they are refused). Needs the build (`npm run build`) and bubblewrap. Temp directories only.
import { spawn, execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel } from '../dist/llm/mock/server.js'
import { probeSandbox } from '../dist/sandbox/probe.js'
import { CLI } from './run-print.mjs'

const probe = probeSandbox()
if (!probe.ok) {
  console.log(`sandbox prompts bench skipped: ${probe.reason}`)
  process.exit(0)
}

const COMMANDS = [
  'ls -la', 'cat package.json', 'git status --short', 'git log --oneline -3', 'grep -rn TODO src || true',
  'wc -l src/*.js', 'node --version', 'npm test --silent', 'node src/main.js', 'mkdir -p build',
  'cp src/main.js build/', 'echo "// note" >> src/main.js', 'sed -i "s/41/40/" src/lib.js', 'npm test --silent || true', 'git diff --stat',
  'git add -A', 'git -c user.name=b -c user.email=b@b commit -qm change', 'git branch topic', 'git checkout -q topic', 'touch notes.md',
  'printf "a\\nb\\n" | sort -r > sorted.txt', 'cat sorted.txt | head -1', 'rm -f sorted.txt', 'find . -name "*.js" -not -path "./.git/*"', 'du -sh src',
  'python3 -c "print(6*7)"', 'tar czf /tmp/src.tgz src && ls -la /tmp/src.tgz', 'env | grep -c PATH', 'git checkout -q main', 'git status --short',
]

function workspace(base) {
  const cwd = join(base, 'project')
  mkdirSync(join(cwd, 'src'), { recursive: true })
  writeFileSync(join(cwd, 'package.json'), JSON.stringify({ name: 'b', version: '1.0.0', scripts: { test: 'node -e "require(\'./src/lib.js\')"' } }))
  writeFileSync(join(cwd, 'src/lib.js'), 'module.exports = 41\n')
  writeFileSync(join(cwd, 'src/main.js'), 'console.log(require("./lib.js") + 1) // TODO\n')
  const git = (...args) => execFileSync('git', ['-c', 'init.defaultBranch=main', '-c', 'user.name=b', '-c', 'user.email=b@b', ...args], { cwd, stdio: 'ignore' })
  git('init', '-q')
  git('add', '.')
  git('commit', '-qm', 'init')
  return cwd
}

async function session(flag) {
  const base = realpathSync(mkdtempSync('/var/tmp/rein-sandbox-prompts-'))
  try {
    const cwd = workspace(base)
    const home = join(base, 'rein')
    mkdirSync(home)
    const mock = await startMockModel({ script: [...COMMANDS.map((command) => ({ toolCalls: [{ name: 'bash', arguments: { command } }] })), { text: 'done' }] })
    const code = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, '-p', 'work', '--permission-mode', 'default', flag], {
        cwd,
        env: { ...process.env, DEEPSEEK_BASE_URL: mock.url, DEEPSEEK_API_KEY: 'bench', REIN_HOME: home, HOME: base },
        stdio: ['ignore', 'ignore', 'ignore'],
      })
      child.on('error', reject)
      child.on('close', resolve)
    })
    const last = mock.requests.filter((q) => q.path.endsWith('/chat/completions')).at(-1).body
    await mock.close()
    if (code !== 0) throw new Error(`rein -p ${flag} exited with ${code}`)
    const results = last.messages.filter((m) => m.role === 'tool').map((m) => String(m.content))
    return { asked: results.filter((r) => r.startsWith('Permission needed')).length, failed: results.filter((r) => !r.startsWith('Permission needed') && !/\[exit code: 0\]$/.test(r)).length }
  } finally {
    rmSync(base, { recursive: true, force: true })
  }
}

const without = await session('--no-sandbox')
const withSandbox = await session('--sandbox')
console.log(`${COMMANDS.length} bash calls of ordinary work in default mode, no allow rules:`)
console.log(`  without the sandbox: ${without.asked} needed approval`)
console.log(`  with the sandbox:    ${withSandbox.asked} needed approval, ${withSandbox.failed} ran and failed`)
