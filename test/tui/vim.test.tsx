import { cleanup, render } from 'ink-testing-library'
import { afterEach, describe, expect, it } from 'vitest'
import { App } from '../../src/cli/tui/App.js'
import * as ed from '../../src/cli/tui/editor-state.js'
import { deleteLine, enterNormal, nextWordStart, normalKey, previousWordStart, type VimState } from '../../src/cli/tui/vim.js'
import { FakeAgent, fakeServices, settle, waitForFrame } from './support/fake-agent.js'

afterEach(() => cleanup())

/** Runs normal-mode keys over a text with the caret at `cursor`. */
function keys(text: string, cursor: number, typed: string): { text: string; cursor: number; mode: string } {
  let vim: VimState = { mode: 'normal' }
  let state: ed.EditorState = { ...ed.setText(ed.emptyEditor(), text), cursor }
  for (const k of typed) {
    if (vim.mode === 'insert') {
      state = ed.insert(state, k)
      continue
    }
    const step = normalKey(vim, state, k, {})
    vim = step.vim
    state = step.editor
  }
  return { text: state.text, cursor: state.cursor, mode: vim.mode }
}

describe('vim keys over the editor', () => {
  it('moves by words across punctuation and lines', () => {
    const text = 'fix foo.bar now\nnext'
    expect(nextWordStart(text, 0)).toBe(4)
    expect(nextWordStart(text, 4)).toBe(7)
    expect(nextWordStart(text, 7)).toBe(8)
    expect(nextWordStart(text, 12)).toBe(16)
    expect(previousWordStart(text, 16)).toBe(12)
    expect(previousWordStart(text, 8)).toBe(7)
    expect(previousWordStart(text, 2)).toBe(0)
  })

  it('h l 0 $ stay on the line, x deletes under the caret', () => {
    expect(keys('abc\ndef', 4, 'h').cursor).toBe(4)
    expect(keys('abc\ndef', 4, 'lll').cursor).toBe(6)
    expect(keys('abc\ndef', 6, '0').cursor).toBe(4)
    expect(keys('abc\ndef', 4, '$').cursor).toBe(6)
    expect(keys('abc', 1, 'x')).toMatchObject({ text: 'ac', cursor: 1 })
  })

  it('dd deletes the line, first, middle or last', () => {
    expect(deleteLine({ ...ed.setText(ed.emptyEditor(), 'one\ntwo\nthree'), cursor: 5 })).toMatchObject({ text: 'one\nthree', cursor: 4 })
    expect(deleteLine({ ...ed.setText(ed.emptyEditor(), 'one\ntwo'), cursor: 1 })).toMatchObject({ text: 'two', cursor: 0 })
    expect(deleteLine({ ...ed.setText(ed.emptyEditor(), 'one\ntwo'), cursor: 6 })).toMatchObject({ text: 'one', cursor: 0 })
    expect(keys('only', 2, 'dd')).toMatchObject({ text: '', cursor: 0 })
    expect(keys('keep', 2, 'dx').text).toBe('keep')
  })

  it('i a A o go back to insert at the right place', () => {
    expect(keys('ac', 1, 'ib')).toMatchObject({ text: 'abc', mode: 'insert' })
    expect(keys('ac', 0, 'ab')).toMatchObject({ text: 'abc' })
    expect(keys('ab\nz', 0, 'Ac')).toMatchObject({ text: 'abc\nz' })
    expect(keys('one\nthree', 1, 'otwo')).toMatchObject({ text: 'one\ntwo\nthree' })
  })

  it('Esc steps back onto the last typed character, not past the line start', () => {
    expect(enterNormal({ ...ed.setText(ed.emptyEditor(), 'ab'), cursor: 2 }).editor.cursor).toBe(1)
    expect(enterNormal({ ...ed.setText(ed.emptyEditor(), 'ab\n'), cursor: 3 }).editor.cursor).toBe(3)
  })

  it('letters normal mode does not know never land in the prompt', () => {
    expect(keys('text', 0, 'qzQ!').text).toBe('text')
  })
})

describe('/vim in the terminal UI', () => {
  it('turns vim keys on: Esc for normal mode, dd and i edit, Enter sends; /vim again turns them off', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    ui.stdin.write('/vim')
    await settle(20)
    ui.stdin.write('\r')
    await waitForFrame(ui, 'Vim keys on')
    await waitForFrame(ui, '-- INSERT --')
    for (const chunk of ['first line', '\n', 'second', '\x1b']) {
      ui.stdin.write(chunk)
      await settle(40)
    }
    await waitForFrame(ui, '-- NORMAL --')
    for (const k of ['d', 'd', 'A', ' kept']) {
      ui.stdin.write(k)
      await settle(30)
    }
    await waitForFrame(ui, '› first line kept')
    ui.stdin.write('\r')
    await settle(30)
    expect(agent.calls).toEqual([{ verb: 'followUp', text: 'first line kept', id: 'm0' }])
    ui.stdin.write('/vim')
    await settle(20)
    ui.stdin.write('\r')
    await waitForFrame(ui, 'Vim keys off.')
    expect(ui.lastFrame()).not.toContain('-- INSERT --')
  })
})
