import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { CLI, cliEnv, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { sleep, Terminal } from './support/tmux.js'
import { terminalsClosedAfterEachTest } from './support/terminals.js'

const opened = terminalsClosedAfterEachTest()

async function start(script: MockResponse[], options: { env?: Record<string, string>; columns?: number; rows?: number; box?: ReturnType<typeof sandbox> } = {}) {
  const box = options.box ?? sandbox()
  const mock: MockModel = await startMockModel({ script })
  opened.mocks.push(mock)
  const term = new Terminal(['node', CLI], {
    cwd: box.cwd,
    env: { ...cliEnv({ url: mock.url, home: box.home }), TERM: 'xterm-256color', ...options.env },
    columns: options.columns ?? 100,
    rows: options.rows ?? 30,
  })
  opened.terminals.push(term)
  // The footer is ink's: before it shows, keys meet the first frame's cooked terminal (which eats Ctrl+R, Ctrl+L…).
  await term.waitFor(/ctx \d/)
  // ink turns raw mode on in an effect after that first frame; a control key sent sooner would still meet cooked mode.
  await sleep(400)
  return { term, mock, box }
}

/** Where tmux shows the terminal's cursor, and whether it is visible. */
function cursorOf(term: Terminal): { x: number; y: number; visible: boolean } {
  const out = execFileSync('tmux', ['-L', term.socket, 'display', '-p', '-t', term.name, '#{cursor_x},#{cursor_y},#{cursor_flag}'], { encoding: 'utf8' }).trim()
  const [x, y, flag] = out.split(',').map(Number)
  return { x, y, visible: flag === 1 }
}

/** The row and column of `text` on the screen, counted in cells (CJK takes two). */
function cellOf(screen: string, text: string): { x: number; y: number } {
  const rows = screen.split('\n')
  const y = rows.findIndex((r) => r.includes(text))
  if (y < 0) throw new Error(`the screen does not show ${text}:\n${screen}`)
  const before = rows[y].slice(0, rows[y].indexOf(text))
  let x = 0
  for (const ch of before) x += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(ch) ? 2 : 1
  return { x, y }
}

describe('the real cursor sits at the caret', () => {
  it('follows typed text, CJK included, and a move left', async () => {
    const { term } = await start([])
    term.type('hello 世界')
    const screen = await term.waitFor('› hello 世界')
    await sleep(200)
    const end = cellOf(screen, '› hello 世界')
    // The caret after the text: "› " (2) + "hello " (6) + two CJK characters (4).
    expect(cursorOf(term)).toEqual({ x: end.x + 12, y: end.y, visible: true })
    await term.keys('Left', 'Left')
    await sleep(200)
    expect(cursorOf(term)).toEqual({ x: end.x + 8, y: end.y, visible: true })
  })

  it('stays at the caret of a multi-line prompt', async () => {
    const { term } = await start([])
    term.type('first line')
    // On its own, not in the same read as the text: a line break at the end of a typed burst is Enter.
    await term.waitFor('› first line')
    await sleep(300)
    await term.keys('C-j')
    term.type('second')
    const screen = await term.waitFor('  second')
    await sleep(200)
    const at = cellOf(screen, '  second')
    expect(cursorOf(term)).toEqual({ x: at.x + 8, y: at.y, visible: true })
  })
})

describe('the real cursor after the screen changed', () => {
  it('moves with the prompt box when an answer pushes it down', async () => {
    const { term } = await start([{ text: 'line one\n\nline two\n\nline three' }])
    await term.submit('answer in three lines')
    await term.waitFor('line three')
    term.type('ab')
    const screen = await term.waitFor('› ab')
    await sleep(200)
    const at = cellOf(screen, '› ab')
    expect(cursorOf(term)).toEqual({ x: at.x + 4, y: at.y, visible: true })
  })
})

describe('Ctrl+G edits the prompt in $EDITOR', () => {
  it('hands the terminal to the editor and takes back what it wrote, unsent', async () => {
    const box = sandbox()
    const script = join(box.root, 'fake-editor.sh')
    const seen = join(box.root, 'seen.txt')
    writeFileSync(script, `#!/bin/sh\ncat "$1" > '${seen}'\nprintf 'rewritten by the editor\\nsecond line\\n' > "$1"\n`)
    chmodSync(script, 0o755)
    const { term, mock } = await start([], { box, env: { EDITOR: script } })
    term.type('draft text')
    await term.waitFor('› draft text')
    await term.keys('C-g')
    const screen = await term.waitFor('› rewritten by the editor')
    expect(screen).toContain('  second line')
    expect(screen).not.toContain('draft text')
    expect(mock.requests).toHaveLength(0)
    expect(readFileSync(seen, 'utf8')).toBe('draft text')
    term.type(' and more')
    await term.waitFor('second line and more')
  })

  it('says in one sentence that no editor is set, and keeps the prompt', async () => {
    const { term } = await start([], { env: { EDITOR: '', VISUAL: '' } })
    term.type('keep me')
    await term.waitFor('› keep me')
    await term.keys('C-g')
    const screen = await term.waitFor('Set $VISUAL or $EDITOR')
    expect(screen).toContain('› keep me')
  })

  it('keeps the prompt when the editor fails', async () => {
    const { term } = await start([], { env: { EDITOR: 'false' } })
    term.type('still here')
    await term.waitFor('› still here')
    await term.keys('C-g')
    const screen = await term.waitFor('The editor (false) exited with code 1; the prompt is unchanged.')
    expect(screen).toContain('› still here')
  })
})

describe('Ctrl+L clears the screen and keeps the history', () => {
  it('leaves one prompt box at the top and the conversation in the scrollback', async () => {
    const { term } = await start([{ text: 'The first answer.' }])
    await term.submit('a question')
    await term.waitFor('The first answer.')
    term.type('typed')
    await term.waitFor('› typed')
    await term.keys('C-l')
    await sleep(400)
    const screen = term.screen()
    expect(screen).toMatch(/^╭─+╮\n│ › typed/)
    expect(screen).not.toContain('The first answer.')
    const history = term.history()
    expect(history).toContain('The first answer.')
    const after = history.slice(history.indexOf('The first answer.'))
    expect(after.match(/╭─+╮/g), after).toHaveLength(1)
  })
})

describe('# in a real terminal', () => {
  it('adds the line to AGENTS.md, and the next request carries it through the workspace instructions', async () => {
    const { term, mock, box } = await start([{ text: 'Noted.' }])
    await term.submit('# answer in French')
    await term.waitFor('Added to project · AGENTS.md')
    expect(readFileSync(join(box.cwd, 'AGENTS.md'), 'utf8')).toBe('- answer in French\n')
    expect(mock.requests).toHaveLength(0)
    await term.submit('hello')
    await term.waitFor('Noted.')
    expect(JSON.stringify(mock.requests[0]?.body)).toContain('- answer in French')
  })
})

describe('Ctrl+R in a real terminal', () => {
  it('finds a prompt of an earlier session of the workspace', async () => {
    const box = sandbox()
    const first = await start([{ text: 'First session answer.' }], { box })
    await first.term.submit('deploy the staging branch')
    await first.term.waitFor('First session answer.')
    first.term.close()
    const { term, mock } = await start([{ text: 'Deployed again.' }], { box })
    await term.keys('C-r')
    term.type('stag')
    await term.waitFor('reverse search “stag”')
    expect(term.screen()).toContain('› deploy the staging branch')
    await term.keys('Enter')
    await sleep(500)
    expect(term.screen()).not.toContain('reverse search')
    expect(term.screen()).toContain('› deploy the staging branch')
    expect(mock.requests).toHaveLength(0)
    await sleep(500)
    await term.keys('Enter')
    await term.waitFor('Deployed again.')
    expect(JSON.stringify(mock.requests[0]?.body)).toContain('deploy the staging branch')
  })
})

/** The smallest PNG header a sniffer takes for an image, plus a few bytes of body. */
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('rein-clipboard-image')])

describe('Ctrl+V pastes an image from the clipboard', () => {
  it('reads it with xclip and sends it to the model as an image block, as a pasted image path would be', async () => {
    const box = sandbox()
    const bin = join(box.root, 'bin')
    mkdirSync(bin)
    writeFileSync(join(box.root, 'clip.png'), PNG)
    writeFileSync(join(bin, 'xclip'), `#!/bin/sh\n[ "$*" = "-selection clipboard -t image/png -o" ] || exit 3\ncat '${join(box.root, 'clip.png')}'\n`)
    chmodSync(join(bin, 'xclip'), 0o755)
    const { term, mock } = await start([{ text: 'A fine picture.' }], { box, env: { PATH: `${bin}:${process.env.PATH ?? ''}`, WAYLAND_DISPLAY: '' } })
    term.type('what is this')
    await term.waitFor('› what is this')
    await term.keys('C-v')
    await term.waitFor(/› what is this \/\S+clipboard-1\.png/)
    await term.keys('Enter')
    const screen = await term.waitFor('A fine picture.')
    expect(screen).toMatch(/⎘ attached @\/\S+clipboard-1\.png/)
    expect(JSON.stringify(mock.requests[0]?.body)).toContain(`data:image/png;base64,${PNG.toString('base64')}`)
  })

  it('says in one sentence that no clipboard tool is installed, and the prompt stays', async () => {
    const box = sandbox()
    const bin = join(box.root, 'bin')
    mkdirSync(bin)
    symlinkSync(process.execPath, join(bin, 'node'))
    const { term } = await start([], { box, env: { PATH: bin } })
    term.type('my prompt')
    await term.waitFor('› my prompt')
    await term.keys('C-v')
    const screen = await term.waitFor('neither is installed')
    expect(screen).toContain('› my prompt')
  })

  it('says so when the clipboard holds no image', async () => {
    const box = sandbox()
    const bin = join(box.root, 'bin')
    mkdirSync(bin)
    writeFileSync(join(bin, 'xclip'), '#!/bin/sh\nprintf "just some text"\n')
    chmodSync(join(bin, 'xclip'), 0o755)
    const { term } = await start([], { box, env: { PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin` } })
    await term.keys('C-v')
    await term.waitFor('The clipboard holds no image')
  })
})
