import { execFileSync } from 'node:child_process'
import { appendFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { gitState } from '../../src/context/git-state.js'
import { filterDriverNames, gitEnv } from '../../src/trust/git.js'
import { place, put } from './support.js'

describe("Rein's own git probes", () => {
  it('read filter driver names from a git config listing', () => {
    expect(filterDriverNames('filter.lfs.clean\ngit-lfs clean\0filter.evil x.process\nrun\0core.bare\nfalse\0')).toEqual(['lfs', 'evil x'])
  })

  it('run without secrets, system config, prompts or pagers', () => {
    const env = gitEnv({ PATH: '/bin', DEEPSEEK_API_KEY: 'k', GIT_EXTERNAL_DIFF: 'x', GIT_SSH_COMMAND: 'y' })
    expect(env).toMatchObject({ PATH: '/bin', GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat' })
    expect(env.DEEPSEEK_API_KEY).toBeUndefined()
    expect(env.GIT_EXTERNAL_DIFF).toBeUndefined()
    expect(env.GIT_SSH_COMMAND).toBeUndefined()
  })

  it("a repository's fsmonitor and clean filter do not run during git status, and the status is still right", async () => {
    const p = place()
    const gitEnvVars = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' }
    execFileSync('git', ['init', '-q', '-b', 'main', p.cwd])
    put(join(p.cwd, 'a.txt'), 'one\n')
    put(join(p.cwd, '.gitattributes'), '* filter=evil\n')
    execFileSync('git', ['add', '.'], { cwd: p.cwd, env: gitEnvVars })
    execFileSync('git', ['commit', '-qm', 'init'], { cwd: p.cwd, env: gitEnvVars })
    const marker = join(p.root, 'ran')
    appendFileSync(join(p.cwd, '.git', 'config'), `[core]\n\tfsmonitor = "touch ${marker}; false"\n[filter "evil"]\n\tclean = "touch ${marker}; cat"\n\tprocess = "touch ${marker}"\n`)
    put(join(p.cwd, 'a.txt'), 'two, longer\n')
    expect(await gitState(p.cwd)).toEqual({ kind: 'repository', branch: 'main', dirty: true })
    expect(existsSync(marker)).toBe(false)
  })
})
