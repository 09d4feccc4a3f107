/**
 * The names other harnesses give Rein's built-in tools (what the model calls on the left). Hook payloads present
 * tools by these names and permission rules are written with them, so `Edit|Write` matchers and `Bash(npm test)`
 * rules written for Claude Code work unchanged. MCP tools keep their own `mcp__<server>__<tool>` names.
 */
export const PEER_TOOL_NAMES: Readonly<Record<string, string>> = {
  read: 'Read',
  write: 'Write',
  edit: 'Edit',
  bash: 'Bash',
  grep: 'Grep',
  glob: 'Glob',
  ls: 'LS',
  web_fetch: 'WebFetch',
  todo_write: 'TodoWrite',
  job_output: 'BashOutput',
  job_kill: 'KillShell',
  task: 'Task',
}

/** `bash` → `Bash`; an MCP or unknown tool keeps its name. */
export function peerToolName(name: string): string {
  return PEER_TOOL_NAMES[name] ?? name
}
