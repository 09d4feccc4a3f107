import type { EnteringMessage, Extension, ExtensionContext } from '../../agent/extensions.js'
import { claudeAliasOf, isKnownModel } from '../../llm/catalog.js'
import type { Refusal } from '../../fs/read-gate.js'
import type { PermissionPolicy } from '../../permissions/policy.js'
import type { ToolGrants } from '../tool-grants.js'
import { childEnv } from '../../tools/child-env.js'
import { builtinTools } from '../../tools/registry.js'
import { toolFacts } from '../../tools/tool.js'
import { commandFolders, loadCommands, type CustomCommand } from './catalog.js'
import { expandCommand, type Judge } from './expand.js'
import type { PromptRoot } from '../roots.js'

export interface CustomCommandOptions {
  cwd: string
  reinHome: string
  userHome: string
  /** Whether the user trusts this workspace: workspace commands' `` !`cmd` `` and `allowed-tools` need it. */
  trusted: boolean
  policy: Pick<PermissionPolicy, 'decide'>
  grants: ToolGrants
  env: NodeJS.ProcessEnv
  secretEnv?: readonly string[]
  /** Model ids a command's `model` may name besides the catalog's (settings `models`). */
  knownModel?: (id: string) => boolean
  /** The read guard every command file passes (`ReadGuard.refusesLoading`; see `loadCommands`). */
  refuses: Refusal
  /** Whether `model` costs more than `than`: a workspace command in an untrusted workspace may not switch to such a model. */
  dearer?: (model: string, than: string) => boolean
  /**
   * Whether a name is a built-in command's, which keeps its built-in meaning everywhere (`-p` included). Given by the
   * composition root from the front ends' one command catalog, which lives above this folder.
   */
  isBuiltin: (name: string) => boolean
  /** More command folders (a plugin's), namespaced by their root. */
  roots?: readonly PromptRoot[]
}

/** `/name args` in a prompt that is exactly one text block. */
export function parseCommandLine(text: string): { name: string; args: string } | undefined {
  const match = /^\/([A-Za-z0-9][\w.:-]*)(?:[ \t]+([\s\S]*)|\r?\n([\s\S]*))?$/.exec(text.replace(/^\s+/, ''))
  if (!match) return undefined
  return { name: match[1], args: match[2] ?? match[3] ?? '' }
}

const EXPANSION = 'The command being expanded'

/**
 * Custom slash commands as a `preStep` listener, so every front end (`-p`, the terminal UI, ACP, RPC, the SDK) gets
 * them the same way: a prompt `/name args` naming a command (and no built-in) enters as the command's expansion,
 * verbatim, and its `source` keeps `command` and `arguments`. The folders are read when such a prompt arrives, so a
 * command added mid-session works at once. A command that cannot expand rejects the prompt with one sentence.
 * `allowed-tools` holds, and `model` applies, until the turn ends.
 */
export function customCommands(options: CustomCommandOptions): Extension {
  let restoreModel: string | undefined
  // The owner of the allow rules the running command's `allowed-tools` granted, until its turn ends.
  let granted: string | undefined
  return {
    name: 'custom-commands',
    async preStep(step, entering, agent) {
      if (step.step !== 1) return
      const index = entering.findIndex((m) => m.type === 'user/message')
      const message = entering[index]
      if (!message || message.content.length !== 1 || message.content[0].type !== 'text') return
      const line = parseCommandLine(message.content[0].text)
      if (!line || options.isBuiltin(line.name)) return
      const catalog = loadCommands(commandFolders(options), options.refuses)
      const command = catalog.find(line.name)
      if (!command) {
        // A command file that exists but cannot be loaded: say why, rather than send `/name` to the model as typed.
        const broken = catalog.problems.find((p) => p.includes(`/${line.name.split(':').pop()}.md `))
        return broken ? { action: 'reject', reason: broken } : undefined
      }
      const mayWiden = options.trusted || command.scope === 'user'
      const expansion = await expandCommand(command, line.args, {
        cwd: options.cwd,
        mayRun: mayWiden,
        judge: judgeWith(options, agent, mayWiden ? command.allowedTools : []),
        env: childEnv(options.env, { secretEnv: options.secretEnv }),
      })
      if ('error' in expansion) return { action: 'reject', reason: expansion.error }
      if (mayWiden) {
        granted = `The command /${command.name}`
        for (const problem of options.grants.grant(granted, command.allowedTools)) agent.notify('warning', problem)
      } else if (command.allowedTools.length) {
        agent.notify('info', `/${command.name} lists allowed-tools, which a workspace command gets only in a trusted workspace; its tools ask as usual.`)
      }
      applyModel(command, agent, mayWiden)
      const expanded: EnteringMessage = {
        ...message,
        content: [{ type: 'text', text: expansion.text }],
        source: { ...message.source, command: line.name, arguments: line.args, file: command.file },
      }
      return { action: 'enter', messages: entering.map((m, i) => (i === index ? expanded : m)) }
    },
    event(event, agent) {
      if (event.type !== 'turn/end') return
      if (granted) options.grants.revoke(granted)
      granted = undefined
      if (restoreModel !== undefined) agent.setModel(restoreModel)
      restoreModel = undefined
    },
  }

  function applyModel(command: CustomCommand, agent: ExtensionContext, trustedCommand: boolean): void {
    if (!command.model || command.model === agent.model) return
    // A `claude*` name in a command file is Claude Code's choice, not the user's: DeepSeek would serve it only as an
    // alias on another wire, which would also cost the session's cached prefix, so the command runs on the session's model.
    if (claudeAliasOf(command.model) && !options.knownModel?.(command.model)) {
      agent.notify('info', `/${command.name} asks for the Claude model ${command.model}; it runs with ${agent.model}.`)
      return
    }
    if (!isKnownModel(command.model) && !options.knownModel?.(command.model)) {
      agent.notify('info', `/${command.name} asks for the model ${command.model}, which is not a model Rein knows; it runs with ${agent.model}.`)
      return
    }
    if (!trustedCommand && options.dearer?.(command.model, agent.model)) {
      agent.notify('warning', `/${command.name} asks for the model ${command.model}, which costs more than ${agent.model}; a workspace command may choose it only once the workspace is trusted, so it runs with ${agent.model}.`)
      return
    }
    restoreModel = agent.model
    agent.setModel(command.model)
  }
}

/** The policy's verdict on a call the expansion would make, with the command's `allowed-tools` in force. */
function judgeWith(options: CustomCommandOptions, agent: ExtensionContext, allowedTools: readonly string[]): Judge {
  return async (call) => {
    options.grants.grant(EXPANSION, allowedTools)
    let decision
    try {
      const tool = toolFacts(builtinTools().find((t) => t.name === call.name))
      const info = { turn: 0, step: 0, callId: 'command-expansion', name: call.name, arguments: JSON.stringify(call.input), input: call.input, ...(tool ? { tool } : {}) }
      decision = options.policy.decide(info)
      const answer = decision.action === 'ask' ? await agent.ask({ call: info, reason: decision.reason }) : undefined
      if (answer && answer.outcome !== 'unanswered') {
        return answer.outcome === 'deny' ? { allowed: false, why: 'was refused when you were asked' } : { allowed: true }
      }
    } finally {
      options.grants.revoke(EXPANSION)
    }
    if (decision.action === 'allow' || decision.action === 'rewrite') return { allowed: true }
    if (decision.action === 'deny') return { allowed: false, why: `is refused (${decision.reason.replace(/\.$/, '')})` }
    return {
      allowed: false,
      why: `needs approval and nothing could ask for it; allow it with a permission rule or the command's allowed-tools in a trusted workspace (${decision.reason.replace(/\.$/, '')})`,
    }
  }
}
