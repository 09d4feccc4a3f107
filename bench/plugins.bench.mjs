// What plugins cost a session's start (src/plugins): resolving the plugins of a session (two --plugin-dir folders,
// the published ralph-loop and feature-dev fixtures, read whole through the read gate) and turning them into the
// loaders' inputs, then loading the commands, agent files and hooks they bring, as openAgent does once per session.
// Prints the median and 95th percentile of each over 200 runs. Needs the build (`npm run build`). Temp dirs only.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { resolvePlugins } from '../dist/plugins/sources.js'
import { pluginHookFiles, promptRoots } from '../dist/plugins/roots.js'
import { commandFolders, loadCommands } from '../dist/prompt-files/commands/catalog.js'
import { loadAgentFiles } from '../dist/prompt-files/agents/agent-files.js'
import { loadHookCatalog } from '../dist/hooks/catalog.js'

const RUNS = 200
const fixtures = resolve(import.meta.dirname, '../test/fixtures/plugins')
const root = mkdtempSync(join(tmpdir(), 'rein-plugins-bench-'))
const cwd = join(root, 'project')
const home = join(root, 'home')
mkdirSync(cwd, { recursive: true })
mkdirSync(home, { recursive: true })
const pluginDirs = [join(fixtures, 'ralph-loop'), join(fixtures, 'feature-dev')]

const times = { resolve: [], load: [] }
for (let i = 0; i < RUNS; i++) {
  const t0 = performance.now()
  const set = resolvePlugins({ cwd, home, pluginDirs, workspaceTrusted: false })
  const roots = promptRoots(set)
  const t1 = performance.now()
  const commands = loadCommands(commandFolders({ cwd, reinHome: home, userHome: home, roots }), () => undefined)
  const agents = loadAgentFiles({ cwd, home, userHome: home, refuses: () => undefined, roots })
  const hooks = loadHookCatalog({ cwd, home, userHome: home, extra: pluginHookFiles(set) })
  const t2 = performance.now()
  if (set.plugins.length !== 2 || commands.commands.length !== 4 || agents.agents.length !== 3 || hooks.active.length !== 1) throw new Error('the fixtures did not load whole')
  times.resolve.push(t1 - t0)
  times.load.push(t2 - t1)
}
rmSync(root, { recursive: true, force: true })

const q = (list, p) => [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(list.length * p))]
const row = (label, list) => `${label.padEnd(44)} median ${q(list, 0.5).toFixed(2)} ms   p95 ${q(list, 0.95).toFixed(2)} ms`
console.log(`plugins: ralph-loop + feature-dev, ${RUNS} runs`)
console.log(row('resolve the plugins (manifests, parts, gate)', times.resolve))
console.log(row('load their commands, agents and hooks', times.load))
