import { render } from 'ink-testing-library'
import { it } from 'vitest'
import { App } from '../../src/cli/tui/App.js'
import { FakeAgent, fakeServices, settle } from './support/fake-agent.js'
it('dbg', async () => {
  const agent = new FakeAgent()
  const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
  await settle()
  const p = agent.permissionAsker!({call:{turn:1,step:1,callId:'c',name:'bash',arguments:'{}',input:{}},reason:'r',suggestedRule:'X'}, new AbortController().signal)
  await settle()
  console.log(ui.lastFrame())
  await settle(500); ui.stdin.write("1")
  await settle()
  console.log(ui.lastFrame())
  console.log(await Promise.race([p, settle(100).then(()=> 'timeout')]))
}, 5000)
