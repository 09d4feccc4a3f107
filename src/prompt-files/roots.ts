/**
 * Prompt files from outside the usual places (a plugin's folders): the loaders take these as more source roots beside
 * the user's and the workspace's folders, after them in precedence. Whoever supplies a root has decided it may run as
 * the user's own (src/plugins loads only such plugins), so its commands and skills count as user-level.
 */
export interface PromptRoot {
  /** The command namespace: a command `x` here answers to `<namespace>:x`, and to `x` when no other root has one. */
  namespace: string
  /** The folder every file must really be in (the read gate's base): no file is read through a link out of it. */
  base: string
  commands: readonly string[]
  agents: readonly string[]
  skills: readonly string[]
  /** `${NAME}` references replaced in a command's body and `allowed-tools` (`CLAUDE_PLUGIN_ROOT`). */
  variables: Readonly<Record<string, string>>
}

/** `${NAME}` for every variable of `variables` replaced by its value; other text as it is. */
export function withVariables(text: string, variables: Readonly<Record<string, string>> | undefined): string {
  if (!variables) return text
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => variables[name] ?? whole)
}
