import { useEffect, useState } from 'preact/hooks'
import './panels.css'

/** A file staged on the server for the next prompt (`POST /api/sessions/:id/attachments`). */
export interface StagedFile {
  id: string
  name: string
  kind: 'image' | 'text'
  mimeType?: string
  bytes: number
  /** A `data:` URL of an image, for its thumbnail (the page's CSP allows `data:` images, not `blob:`). */
  preview?: string
}

export interface Attachments {
  files: StagedFile[]
  error: string
  busy: boolean
  add(list: FileList | File[]): Promise<void>
  remove(id: string): Promise<void>
  /** The staged ids, for the prompt that sends them. */
  ids(): string[]
  /** After a prompt took them: the server no longer holds them. */
  clear(): void
  onPaste(e: ClipboardEvent): void
  onDrop(e: DragEvent): void
  onDragOver(e: DragEvent): void
}

/**
 * Attachments of the composer: files picked, dropped or pasted are uploaded one by one; the server types each by its
 * bytes (an image or UTF-8 text) and refuses anything else in one sentence, which shows under the prompt.
 */
export function useAttachments(sessionId: string): Attachments {
  const [files, setFiles] = useState<StagedFile[]>([])
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const base = `/api/sessions/${encodeURIComponent(sessionId)}/attachments`
  // Staged files belong to one session: another session's page starts with none.
  useEffect(() => setFiles([]), [sessionId])
  const add = async (list: FileList | File[]): Promise<void> => {
    setError('')
    setBusy(true)
    try {
      for (const file of Array.from(list)) {
        const response = await fetch(`${base}?name=${encodeURIComponent(file.name || 'pasted')}`, {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'Content-Type': file.type || 'application/octet-stream' },
          body: file,
        })
        const answer = (await response.json().catch(() => ({}))) as Partial<StagedFile> & { error?: string }
        if (!response.ok) {
          setError(answer.error ?? `The server answered ${response.status}.`)
          continue
        }
        const staged = answer as StagedFile
        if (staged.kind === 'image') staged.preview = await dataUrl(file)
        setFiles((old) => [...old, staged])
      }
    } finally {
      setBusy(false)
    }
  }
  const remove = async (id: string): Promise<void> => {
    setFiles((old) => old.filter((f) => f.id !== id))
    await fetch(`${base}/${id}`, { method: 'DELETE', credentials: 'same-origin' }).catch(() => undefined)
  }
  return {
    files,
    error,
    busy,
    add,
    remove,
    ids: () => files.map((f) => f.id),
    clear: () => setFiles([]),
    onPaste: (e) => {
      const pasted = Array.from(e.clipboardData?.files ?? [])
      if (!pasted.length) return
      e.preventDefault()
      void add(pasted)
    },
    onDrop: (e) => {
      if (!e.dataTransfer?.files.length) return
      e.preventDefault()
      void add(e.dataTransfer.files)
    },
    onDragOver: (e) => {
      if (e.dataTransfer?.types.includes('Files')) e.preventDefault()
    },
  }
}

function dataUrl(file: File): Promise<string> {
  return new Promise((resolve) => {
    const reader = new FileReader()
    reader.onload = () => resolve(String(reader.result))
    reader.onerror = () => resolve('')
    reader.readAsDataURL(file)
  })
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

/** The file picker and the staged files, each with a button that takes it back. */
export function AttachmentBar({ attachments }: { attachments: Attachments }) {
  return (
    <div class="attachments">
      <label class="attach-button">
        <input
          type="file"
          multiple
          class="sr-only"
          onChange={(e) => {
            const input = e.currentTarget
            if (input.files?.length) void attachments.add(input.files).then(() => (input.value = ''))
          }}
        />
        Attach files
      </label>
      {attachments.busy && <span class="muted">Uploading…</span>}
      {attachments.files.length > 0 && (
        <ul class="staged" aria-label="Attached files">
          {attachments.files.map((f) => (
            <li key={f.id} class="chip">
              {f.preview && <img src={f.preview} alt="" width={28} height={28} />}
              <span>{f.name}</span>
              <span class="muted">{f.kind === 'image' ? f.mimeType : 'text'}, {size(f.bytes)}</span>
              <button type="button" class="link" aria-label={`Remove ${f.name}`} onClick={() => void attachments.remove(f.id)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {attachments.error && (
        <p class="error" role="alert">
          {attachments.error}
        </p>
      )}
    </div>
  )
}
