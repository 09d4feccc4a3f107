import { createHash } from 'node:crypto'
import { isAbsolute, relative } from 'node:path'
import { isHookEvent, type HookDefinition, type HookFile } from './definitions.js'
import { compileMatcher } from './matcher.js'

/** `${NAME}` of `variables` replaced in `text`; other references are left for the shell. */
function withVariables(text: string, variables: Readonly<Record<string, string>> | undefined): string {
  if (!variables) return text
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => variables[name] ?? whole)
}

/** What one file yielded: its usable definitions and one sentence for each part that was skipped. */
export interface ParsedHookFile {
  definitions: HookDefinition[]
  problems: string[]
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The largest file whose JSON mistake is located by re-parsing prefixes; settings files are far smaller. */
const LOCATE_LIMIT = 64 * 1024

/**
 * Where a JSON text stops being valid, as `line N`. Node 20 gives a position for some mistakes and none for others
 * (`Unexpected token ','`), so the first prefix whose error is not just "input ended early" marks the spot; when
 * there is none, the file stops too soon and the mistake is its end.
 */
function jsonErrorLine(text: string): number | undefined {
  if (text.length > LOCATE_LIMIT) return undefined
  for (let end = 1; end <= text.length; end++) {
    try {
      JSON.parse(text.slice(0, end))
    } catch (error) {
      const message = (error as Error).message
      const position = /at position (\d+)/.exec(message)
      const endedEarly = message.includes('Unexpected end') || (position !== null && Number(position[1]) >= end)
      if (!endedEarly) return text.slice(0, position ? Number(position[1]) + 1 : end).split('\n').length
    }
  }
  // Every prefix was only unfinished: the file ends before its JSON does.
  return text.split('\n').length
}

/** `Unexpected token ','` on line 3, so the person can find the mistake. */
function jsonErrorPlace(text: string, error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).split(/,? "|\s+in JSON at position/)[0]
  const line = jsonErrorLine(text)
  return line === undefined ? message : `${message} on line ${line}`
}

/** The trust hash: what the handler does and where it is written, in a fixed key order. */
export function definitionHash(file: string, event: string, matcher: string, command: string, timeoutSec?: number, env?: string[]): string {
  // `env` joins the identity only when set, so definitions trusted before it existed keep their hash.
  const identity = JSON.stringify({ file, event, matcher, type: 'command', command, timeout: timeoutSec ?? null, ...(env ? { env } : {}) })
  return createHash('sha256').update(identity).digest('hex')
}

/** How a file is named in problems: relative to the working directory when inside it, else absolute. */
export function displayPath(path: string, cwd: string): string {
  // A source that is not a file (`<--settings>`, `<Agent SDK program>`) is named as it is.
  if (!isAbsolute(path)) return path
  const rel = relative(cwd, path)
  return rel && !rel.startsWith('..') ? rel : path
}

/**
 * Reads the `hooks` object of one settings or hooks file (`{"hooks": {Event: [{matcher, hooks: [{type, command,
 * timeout}]}]}}`, the same shape in both dialects). A file that does not parse yields one problem and no
 * definitions; a bad group or handler is skipped alone and the rest of the file still loads. `order` numbers the
 * definitions from `firstOrder` on.
 */
export function parseHookFile(text: string, file: HookFile, firstOrder: number, cwd: string): ParsedHookFile {
  const name = displayPath(file.path, cwd)
  const problems: string[] = []
  const definitions: HookDefinition[] = []
  let root: unknown
  try {
    root = JSON.parse(text)
  } catch (error) {
    return { definitions, problems: [`Skipped ${name}: it is not valid JSON (${jsonErrorPlace(text, error)}); fix it to load its hooks.`] }
  }
  if (!isRecord(root)) return { definitions, problems: [`Skipped ${name}: it must hold a JSON object; fix it to load its hooks.`] }
  const hooks = root.hooks
  if (hooks === undefined) return { definitions, problems }
  if (!isRecord(hooks)) {
    return { definitions, problems: [`Skipped the hooks of ${name}: "hooks" must be an object of event names; fix it to load them.`] }
  }
  const unsupported: string[] = []
  for (const [event, groups] of Object.entries(hooks)) {
    if (!isHookEvent(event)) {
      unsupported.push(event)
      continue
    }
    if (!Array.isArray(groups)) {
      problems.push(`Skipped the ${event} hooks of ${name}: they must be a list of {matcher, hooks} groups.`)
      continue
    }
    groups.forEach((group, groupIndex) => {
      const where = `${event} group ${groupIndex + 1} of ${name}`
      if (!isRecord(group) || !Array.isArray(group.hooks)) {
        problems.push(`Skipped the ${where}: it must be an object with a "hooks" list.`)
        return
      }
      const matcher = group.matcher === undefined || group.matcher === null ? '' : group.matcher
      if (typeof matcher !== 'string') {
        problems.push(`Skipped the ${where}: its matcher must be a string.`)
        return
      }
      const compiled = compileMatcher(matcher, file.dialect)
      if ('error' in compiled) {
        problems.push(`Skipped the ${where}: ${compiled.error}.`)
        return
      }
      group.hooks.forEach((handler, handlerIndex) => {
        const at = `handler ${handlerIndex + 1} of the ${where}`
        const type = isRecord(handler) ? (handler.type ?? 'command') : undefined
        if (type !== undefined && type !== 'command') {
          problems.push(`Skipped ${at}: Rein runs only "command" hooks, not "${String(type)}".`)
          return
        }
        if (!isRecord(handler) || typeof handler.command !== 'string' || handler.command.trim() === '') {
          problems.push(`Skipped ${at}: it needs a "command" string.`)
          return
        }
        let timeoutSec: number | undefined
        if (handler.timeout !== undefined) {
          if (typeof handler.timeout === 'number' && Number.isFinite(handler.timeout) && handler.timeout > 0) {
            timeoutSec = handler.timeout
          } else {
            problems.push(`The timeout of ${at} is not a positive number of seconds; the default of 600 s applies.`)
          }
        }
        let env: string[] | undefined
        if (handler.env !== undefined) {
          if (Array.isArray(handler.env) && handler.env.every((name) => typeof name === 'string')) {
            env = handler.env as string[]
          } else {
            problems.push(`Skipped ${at}: its "env" must be a list of variable names, like ["GITHUB_TOKEN"].`)
            return
          }
        }
        const command = withVariables(handler.command, file.variables)
        definitions.push({
          event,
          matcher,
          command,
          timeoutSec,
          ...(env ? { env } : {}),
          file,
          order: firstOrder + definitions.length,
          hash: definitionHash(file.path, event, matcher, command, timeoutSec, env),
          matches: (target) => compiled.test(target),
        })
      })
    })
  }
  if (unsupported.length) {
    problems.push(`Rein does not run ${unsupported.join(', ')} hooks; those in ${name} are ignored.`)
  }
  return { definitions, problems }
}
