/**
 * A plugin as Rein loaded it: its name, where its root really is, and the parts it brings, each path inside the root.
 * Only plugins that may run are loaded (docs/claude-code.md, "Plugins"): a plugin only a project's settings enable
 * is loaded once the workspace is trusted, so every loaded plugin's parts are the user's to run.
 */
export interface LoadedPlugin {
  name: string
  /** The plugin's folder, real path: the read gate's folder for every file of it, and `${CLAUDE_PLUGIN_ROOT}`. */
  root: string
  version?: string
  description?: string
  /** How it was named: `--plugin-dir`, installed by `rein plugin install`, or `enabledPlugins` in a settings file. */
  source: PluginSource
  /** `name@marketplace` for an installed or settings-enabled plugin. */
  key?: string
  commandDirs: string[]
  agentDirs: string[]
  skillDirs: string[]
  /** Hook configurations: each file's text (read through the gate) or the manifest's inline `hooks`, as `{"hooks": …}`. */
  hooks: { path: string; text: string }[]
  /** MCP server definitions by name, as written (`${CLAUDE_PLUGIN_ROOT}` is expanded when they are parsed). */
  mcpServers: Record<string, unknown>
  /** Where the servers were defined (the plugin's `.mcp.json` or its manifest), for notices. */
  mcpFile: string
}

export type PluginSource = 'flag' | 'installed' | 'user-settings' | 'project-settings'

/** One plugin that did not load, as `system/init`'s `plugin_errors` lists it. */
export interface PluginError {
  /** The plugin's name or key when known, else `inline[N]` for the Nth `--plugin-dir`. */
  plugin: string
  message: string
  path?: string
}

/** Every plugin of a session: those loaded, and one sentence for each that was not. */
export interface PluginSet {
  plugins: LoadedPlugin[]
  errors: PluginError[]
  /** Plugins only a project's settings enable, left out because the workspace is not trusted (named in the trust notice). */
  untrusted: { key: string; file: string }[]
}

export const NO_PLUGINS: PluginSet = { plugins: [], errors: [], untrusted: [] }

/** The variable a plugin's hooks, MCP servers and commands use to name files of their own. */
export const PLUGIN_ROOT_VAR = 'CLAUDE_PLUGIN_ROOT'

/** `${CLAUDE_PLUGIN_ROOT}` (and `$CLAUDE_PLUGIN_ROOT` before a non-name character) replaced by `root`. */
export function withPluginRoot(text: string, root: string): string {
  return text.replace(/\$\{CLAUDE_PLUGIN_ROOT\}|\$CLAUDE_PLUGIN_ROOT(?![A-Za-z0-9_])/g, () => root)
}
