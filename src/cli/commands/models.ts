import type { Command } from 'commander'
import { loadSettings } from '../../config/settings.js'
import { KNOWN_MODEL_IDS, modelInfo, RETIRED_MODELS, type ModelInfo, type Prices } from '../../llm/catalog.js'
import { resolveApiKey } from '../../llm/credentials.js'
import { listServedModels } from '../../llm/list-models.js'
import { modelOverridesOf } from '../../llm/model-settings.js'
import { reinHome } from '../../store/home.js'

/**
 * `rein models`: the catalog Rein prices and sizes requests with (built-in ids, then ids the settings add), the
 * retired ids, and — when a key is configured — the ids DeepSeek's `GET /models` lists, marking those the catalog
 * does not know (they still work with `--model`, with a 128K window and Flash prices until settings describe them).
 */
export function registerModelsCommand(program: Command): void {
  program
    .command('models')
    .description('List the models Rein knows (windows, output caps, vision, prices) and, with a key, those DeepSeek serves.')
    .option('--json', 'print one JSON object instead of tables')
    .action(async (flags: { json?: boolean }) => {
      const home = reinHome()
      let overrides
      try {
        overrides = modelOverridesOf(loadSettings(process.cwd(), home).models)
      } catch (error) {
        process.stderr.write(`${(error as Error).message}\n`)
        process.exitCode = 1
        return
      }
      const ids = [...KNOWN_MODEL_IDS, ...Object.keys(overrides).filter((id) => !KNOWN_MODEL_IDS.includes(id))]
      const catalog = ids.map((id) => ({ ...modelInfo(id, overrides), fromSettings: id in overrides }))
      const key = resolveApiKey(process.env, home)
      let served: string[] | undefined
      let failure: string | undefined
      if (key) {
        try {
          served = await listServedModels({ baseUrl: process.env.DEEPSEEK_BASE_URL, apiKey: key })
        } catch (error) {
          failure = (error as Error).message
        }
      }
      if (flags.json) {
        const servedList = served?.map((id) => ({ id, inCatalog: ids.includes(id) }))
        process.stdout.write(`${JSON.stringify({ catalog, retired: RETIRED_MODELS, served: servedList ?? null, ...(failure ? { error: failure } : {}) })}\n`)
      } else {
        process.stdout.write(renderCatalog(catalog))
        process.stdout.write(`\nRetired: ${RETIRED_MODELS.map((m) => `${m.id} (on ${m.retiredOn}; use ${m.replacement})`).join(', ')}.\n`)
        if (served) process.stdout.write(renderServed(served, ids))
        else if (!key) process.stdout.write('\nSet DEEPSEEK_API_KEY to also list the models DeepSeek serves to your key.\n')
      }
      if (failure) {
        process.stderr.write(`${failure}\n`)
        process.exitCode = 1
      }
    })
}

function renderCatalog(catalog: readonly (ModelInfo & { fromSettings: boolean })[]): string {
  const rows = catalog.map((m) => [
    m.id + (m.aliasOf ? ` (alias of ${m.aliasOf})` : '') + (m.fromSettings ? ' (settings)' : ''),
    m.contextWindow.toLocaleString('en-US'),
    m.maxOutput.toLocaleString('en-US'),
    m.images ? 'yes' : 'no',
    priceText(m.prices),
    m.peakPrices ? priceText(m.peakPrices) : 'same',
  ])
  const head = ['model', 'context', 'max output', 'images', 'off-peak hit/miss/out', 'peak hit/miss/out']
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()
  return `${[line(head), ...rows.map(line)].join('\n')}\nPrices are USD per 1M tokens; peak is 01:00–04:00 and 06:00–10:00 UTC, Monday to Friday.\n`
}

function priceText(p: Prices): string {
  return `${p.cacheHit} / ${p.cacheMiss} / ${p.output}`
}

function renderServed(served: readonly string[], known: readonly string[]): string {
  if (!served.length) return '\nDeepSeek lists no models for this key.\n'
  const lines = served.map((id) => `  ${id}${known.includes(id) ? '' : '  (not in Rein\'s catalog: add it under "models" in settings to set its window and prices)'}`)
  return `\nDeepSeek serves:\n${lines.join('\n')}\n`
}
