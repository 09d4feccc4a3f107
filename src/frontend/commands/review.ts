import { readGuardOf } from '../../tools/read-guard.js'
import { plainText } from '../render/plain.js'
import { sendAsUser } from './prompt.js'
import { gatherChanges, MAX_DIFF_BYTES, namesCommit, type Changes } from './review-diff.js'
import type { BuiltinCommand } from './types.js'

/** Rein's review prompt around the gathered changes; `focus` is what the user typed after the ref, if anything. */
export function reviewPrompt(changes: Extract<Changes, { kind: 'changes' }>, focus: string): string {
  const fence = changes.diff.includes('```') ? '~~~~' : '```'
  return [
    `Review these changes to the repository, against ${changes.against}. Do not change any file; report only.`,
    '',
    'Look for, in this order: bugs and behaviour that breaks (wrong conditions, unhandled errors, races, resource leaks),',
    'security problems (injection, secrets, unchecked input), missing or weak tests for what changed, and then clarity and',
    'consistency with the code around it. Read the surrounding code where the diff alone does not show whether something',
    'is right. For each finding give the file and line, what is wrong, why it matters, and a concrete fix; put the most',
    'serious first and say how sure you are when it is a guess. Skip style nits a formatter would fix. End with a one-line',
    'verdict: ready to commit, or what must change first.',
    ...(focus ? ['', `The user asks you to focus on: ${focus}`] : []),
    ...(changes.stat ? ['', 'Changed files:', fence, changes.stat, fence] : []),
    ...(changes.untracked.length ? ['', 'New files git does not track yet (read the ones that matter):', ...changes.untracked.map((p) => `- ${p}`)] : []),
    ...(changes.leftOut.length ? ['', `Not included here (the diff is cut at ${MAX_DIFF_BYTES / 1024} KB; read these yourself if they matter): ${changes.leftOut.join('; ')}.`] : []),
    ...(changes.diff ? ['', 'The diff:', `${fence}diff`, changes.diff.trimEnd(), fence] : []),
  ].join('\n')
}

/**
 * `/review [ref] [focus]`: gathers the working tree's changes (against HEAD, or against where `ref` and HEAD part)
 * and sends them with Rein's review prompt as the user's message. Not a git repository, or nothing changed: one
 * sentence and no request.
 */
export const reviewCommand: BuiltinCommand = {
  name: 'review',
  argument: { hint: '[ref] [focus]' },
  help: "Ask the model to review the working tree's changes (or the changes since a ref)",
  surfaces: ['tui', 'acp', 'rpc', 'web', 'print'],
  // Many repositories and users have a `review.md` of their own; where one is offered, `/review` is that.
  yields: true,
  async run(ctx, arg) {
    const [first = '', ...rest] = arg.split(/\s+/).filter(Boolean)
    // The first word is the base when it names a commit; else it starts the focus (`/review error handling`). One
    // that looks like a ref (`origin/mian`, `HEAD~x`) but names none is refused rather than read as focus.
    const ref = first && (await namesCommit(ctx.agent.cwd, first)) ? first : undefined
    if (!ref && /[/~^@]/.test(first)) return ctx.reply(`There is no commit ${first.slice(0, 60)} in this repository; try /review main or /review HEAD~1.`, { level: 'warning' })
    const focus = ref ? rest.join(' ') : arg.trim()
    const guard = ctx.agent.toolState ? readGuardOf(ctx.agent.toolState) : undefined
    const changes = await gatherChanges({ cwd: ctx.agent.cwd, ...(ref ? { ref } : {}), ...(guard ? { refuses: (p: string) => guard.refuses(p) } : {}) })
    if (changes.kind === 'none') return ctx.reply(plainText(changes.message), { level: 'warning' })
    sendAsUser(ctx, 'review', arg, reviewPrompt(changes, focus))
    const cut = changes.leftOut.length ? ` (left out: ${changes.leftOut.join('; ')})` : ''
    // File names come from the repository: no escape sequence in one reaches a screen.
    ctx.reply(plainText(`Asked the model to review the changes against ${ref ?? 'HEAD'}${cut}.`))
  },
}
