/**
 * Secrets in a home directory that no sandboxed command reads: credential stores of common tools, relative to the
 * home. Directories are hidden by an empty read-only tmpfs, files by `/dev/null`; only those that exist are masked.
 */
export const HOME_CREDENTIAL_STORES = [
  '.ssh', '.gnupg', '.aws', '.azure', '.config/gcloud', '.config/gh', '.config/hub', '.docker', '.kube',
  '.netrc', '.git-credentials', '.config/git/credentials', '.npmrc', '.yarnrc', '.yarnrc.yml', '.pypirc',
  '.config/pip', '.cargo/credentials', '.cargo/credentials.toml', '.gem/credentials', '.m2/settings.xml',
  '.gradle/gradle.properties', '.terraform.d/credentials.tfrc.json', '.vault-token', '.password-store',
  '.local/share/keyrings', '.config/op', '.config/1Password', '.claude/.credentials.json', '.codex/auth.json',
  '.config/rclone', '.s3cfg', '.boto', '.pgpass', '.my.cnf', '.mozilla', '.config/google-chrome', '.config/chromium',
  '.bash_history', '.zsh_history', '.python_history', '.node_repl_history', '.psql_history', '.mysql_history',
]

/**
 * Files inside the writable workspace that stay read-only: what runs on the next git command (hooks, config with
 * `core.hooksPath` or `core.fsmonitor`) and what widens what Rein or Claude Code allow. The rest of `.git` stays
 * writable so commits, branches and worktrees work.
 */
export const WORKSPACE_READ_ONLY = [
  '.git/hooks', '.git/config', '.rein', '.claude/settings.json', '.claude/settings.local.json',
  '.claude/hooks', '.claude/commands', '.claude/agents', '.claude/skills', '.mcp.json', '.codex', '.vscode', '.idea',
]

/** Host sockets a command could use to act outside the sandbox, beyond everything under /run (hidden whole). */
export const HOST_SOCKETS = ['/var/run/docker.sock', '/var/lib/docker.sock', '/tmp/.X11-unix', '/tmp/.ICE-unix']

/** Environment variables that name an agent or bus socket; the sandbox hides the socket and drops the variable. */
export const SOCKET_ENV = ['SSH_AUTH_SOCK', 'GPG_AGENT_INFO', 'DBUS_SESSION_BUS_ADDRESS', 'DOCKER_HOST', 'XDG_RUNTIME_DIR', 'WAYLAND_DISPLAY', 'DISPLAY', 'KRB5CCNAME']
