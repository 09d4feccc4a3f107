import { render } from 'ink-testing-library'
import { afterEach, describe, expect, it } from 'vitest'
import { App } from '../../src/cli/tui/App.js'
import { setTheme, theme } from '../../src/cli/tui/theme.js'
import { FakeAgent, fakeServices, settle, waitForFrame } from './support/fake-agent.js'

afterEach(() => setTheme('dark', 'auto'))

async function typeLine(ui: ReturnType<typeof render>, text: string) {
  ui.stdin.write(text)
  await settle(60)
  ui.stdin.write('\r')
}

describe('pickers for a command argument', () => {
  it('/model with no argument picks a model (window and price shown), then an effort, and applies both', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await waitForFrame(ui, 'ask Rein')
    await typeLine(ui, '/model')
    const models = await waitForFrame(ui, '/model · Show or switch the model')
    expect(models).toMatch(/deepseek-flash 1,048,565 tokens · \$0\.15 in, \$0\.60 out per 1M/)
    expect(models).toContain('deepseek-v4-pro')
    expect(models).not.toContain('deepseek-chat')
    ui.stdin.write('pro')
    await settle(60)
    ui.stdin.write('\r')
    const efforts = await waitForFrame(ui, '/effort · Show or set how hard the model thinks')
    expect(efforts).toContain('The model is now deepseek-v4-pro')
    expect(efforts).toMatch(/high current/)
    ui.stdin.write('\x1b[B')
    await settle(40)
    ui.stdin.write('\r')
    await waitForFrame(ui, 'Effort is now')
    expect(agent.config).toEqual({ model: 'deepseek-v4-pro', effort: 'low' })
    ui.unmount()
  })

  it('Esc closes the picker and changes nothing; /model with an argument still switches at once', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await waitForFrame(ui, 'ask Rein')
    await typeLine(ui, '/model')
    await waitForFrame(ui, '/model · Show or switch')
    ui.stdin.write('\x1b')
    await settle(250)
    expect(ui.lastFrame()).not.toContain('/model · Show or switch')
    expect(agent.config.model).toBe('deepseek-v4-flash')
    await typeLine(ui, '/model deepseek-chat')
    await waitForFrame(ui, 'DeepSeek retired deepseek-chat')
    expect(agent.config.model).toBe('deepseek-v4-flash')
    expect(ui.lastFrame()).not.toContain('/effort · ')
    ui.unmount()
  })

  it('/theme light switches the colours of what is drawn next; /theme offers auto, dark and light', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await waitForFrame(ui, 'ask Rein')
    await typeLine(ui, '/theme light')
    await waitForFrame(ui, 'The theme is now light')
    expect(theme().name).toBe('light')
    await typeLine(ui, '/theme sepia')
    await waitForFrame(ui, 'The theme must be one of auto, dark, light')
    await typeLine(ui, '/theme')
    const picker = await waitForFrame(ui, '/theme · ')
    expect(picker).toMatch(/auto[\s\S]*dark[\s\S]*light/)
    ui.unmount()
  })
})
