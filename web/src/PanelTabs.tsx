import { useState } from 'preact/hooks'
import { ChangedFiles } from './ChangedFiles'
import { McpPanel } from './McpPanel'
import './panels.css'

/**
 * The session's side panels, opened from two toggle buttons: the changed-files review and the MCP servers. One is
 * open at a time; closed panels ask the server nothing.
 */
export function PanelTabs({ sessionId, changes, hosted, onRewind }: { sessionId: string; changes: number; hosted: boolean; onRewind?: (turn: number) => void }) {
  const [open, setOpen] = useState<'changes' | 'mcp'>()
  const toggle = (panel: 'changes' | 'mcp'): void => setOpen(open === panel ? undefined : panel)
  return (
    <>
      <div class="row panel-tabs" role="group" aria-label="Panels">
        <button type="button" aria-expanded={open === 'changes'} aria-controls="panel-changes" onClick={() => toggle('changes')}>
          Changed files
        </button>
        <button type="button" aria-expanded={open === 'mcp'} aria-controls="panel-mcp" onClick={() => toggle('mcp')}>
          MCP servers
        </button>
      </div>
      {open === 'changes' && (
        <section class="side-panel" id="panel-changes" aria-labelledby="panel-changes-title">
          <h2 id="panel-changes-title">Changed files</h2>
          <ChangedFiles sessionId={sessionId} version={changes} onRewind={onRewind} />
        </section>
      )}
      {open === 'mcp' && (
        <section class="side-panel" id="panel-mcp" aria-labelledby="panel-mcp-title">
          <h2 id="panel-mcp-title">MCP servers</h2>
          <McpPanel sessionId={sessionId} hosted={hosted} />
        </section>
      )}
    </>
  )
}
