import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dangerousUse, scriptRunner } from '../../src/permissions/dangerous-flags.js'
import { permissionNeededMessage } from '../../src/permissions/policy.js'
import { splitCommand } from '../../src/permissions/shell-split.js'
import { bash } from './calls.js'
import { policyFixture, type PolicyFixture } from './policy-setup.js'

let f: PolicyFixture
beforeAll(() => {
  f = policyFixture()
})
afterAll(() => f.dispose())

const deny = ['Read(~/.ssh/**)']
const allow = ['Bash(cat:*)', 'Bash(grep:*)', 'Bash(ls:*)', 'Bash(echo:*)']

describe('commands whose paths cannot be judged from their text ask, whatever the allow rules', () => {
  const cases: [string, RegExp][] = [
    ['cat $HOME/.ssh/id_rsa', /expands a variable/],
    ['cat ${HOME}/.ssh/id_rsa', /expands a variable/],
    ['cat "$HOME/.ssh/id_rsa"', /expands a variable/],
    ['cat ~/.ss?/id_rsa', /starts with ~/],
    [`cat ${'/'}*/id_rsa`, /could reach/],
    ['cat < notes.txt', /reads its input from notes\.txt/],
    ['grep -r SECRET ~', /starts with ~/],
    ['cat /proc/$PPID/environ', /environment or memory/],
    ['cat /proc/self/environ', /environment or memory/],
    ['cat /proc/1/mem', /environment or memory/],
    ['echo $DEEPSEEK_API_KEY', /expands a variable/],
  ]
  for (const [command, why] of cases) {
    it(`asks for \`${command}\` with a reason`, () => {
      const decision = f.decide('default', bash(command), { deny, allow })
      expect(decision.action).toBe('ask')
      expect(decision.reason).toMatch(why)
      expect(decision.reason).toMatch(/allow rules do not cover such commands/)
    })
  }

  it('denies an input redirection from a denied file, and asks for one from any file', () => {
    expect(f.decide('default', bash('cat < ~/.ssh/id_rsa'), { deny, allow }).action).toBe('deny')
    expect(f.decide('default', bash(`cat < ${f.home}/notes`), { allow }).action).toBe('ask')
  })

  it('asks for a recursion over a directory that holds a denied path, named absolutely', () => {
    const decision = f.decide('default', bash(`grep -rn SECRET ${f.home}`), { deny, allow })
    expect(decision).toMatchObject({ action: 'ask', reason: expect.stringMatching(/searches .* recursively, and .*\.ssh inside it is protected/) })
    expect(f.decide('default', bash(`grep -R SECRET ${path.dirname(f.home)}`), { deny, allow }).action).toBe('ask')
  })

  it('asks for a recursion that would reach Rein home, even without deny rules', () => {
    expect(f.decide('default', bash(`grep -r sk- ${f.home}`), { allow }).action).toBe('ask')
  })

  it('still allows plain commands, recursions and globs that cannot reach a denied path', () => {
    for (const c of ['cat src/a.ts', 'grep -rn TODO src', 'ls src/*.ts', 'cat src/[ab].ts']) {
      expect(f.decide('default', bash(c), { deny, allow }).action, c).toBe('allow')
    }
  })

  it('lets a bare Bash rule allow what cannot be judged, and deny rules still win', () => {
    expect(f.decide('default', bash('cat $HOME/notes'), { allow: ['Bash'] }).action).toBe('allow')
    expect(f.decide('default', bash('cat ~/.ssh/id_rsa'), { deny, allow: ['Bash'] }).action).toBe('deny')
  })

  it('refuses in -p with the reason and no rule to grant', () => {
    const c = bash('cat $HOME/.ssh/id_rsa')
    const message = permissionNeededMessage(c, f.decide('default', c, { deny, allow }).reason)
    expect(message).toMatch(/expands a variable/)
    expect(message).not.toMatch(/--allow/)
  })

  it('tells a quoted dollar sign from a variable bash expands', () => {
    expect(splitCommand("awk '{print $1}' f").expansions).toEqual([])
    expect(splitCommand('cat "$HOME/x" ${USER}').expansions).toEqual(['$HOME/x', '$USER'])
  })

  it('records input redirections and globs when splitting', () => {
    expect(splitCommand('cat < a.txt 2>&1 > out')).toMatchObject({ redirects: [{ op: '<', target: 'a.txt' }, { op: '>', target: 'out' }] })
    expect(splitCommand('ls *.ts [ab].md plain').globs).toEqual(['*.ts', '[ab].md'])
  })
})

describe('the dangerous-flag table', () => {
  const allowAll = ['Bash(find:*)', 'Bash(git log:*)', 'Bash(git diff:*)', 'Bash(git show:*)', 'Bash(git:*)', 'Bash(sed:*)', 'Bash(rg:*)', 'Bash(base64:*)', 'Bash(tar:*)', 'Bash(xargs:*)', 'Bash(sort:*)', 'Bash(awk:*)', 'Bash(fd:*)', 'Bash(man:*)', 'Bash(env:*)']
  const dangerous = [
    'find . -exec sh -c id \\;',
    'find . -execdir rm {} +',
    'find . -ok rm {} \\;',
    'find . -okdir rm {} \\;',
    'find . -delete',
    'find . -fprint /tmp/x',
    'find . -fprintf /tmp/x %p',
    'find . -fls /tmp/x',
    'git log --output=/tmp/x',
    'git diff --output /tmp/x',
    'git show --output=/tmp/x HEAD',
    'git -c core.pager=id log',
    'git -c core.fsmonitor=id status',
    'sed -i s/a/b/ f',
    'sed -i.bak s/a/b/ f',
    'sed -ni p f',
    "sed '1e id' f",
    "sed 's/.*/id/e' f",
    "sed 's/a/b/w out' f",
    'rg --pre ./x pattern',
    'rg --pre=./x pattern',
    'rg -z pattern',
    'base64 -o /tmp/x f',
    'tar --to-command=sh -xf a.tar',
    'tar -xf a.tar',
    'tar xzf a.tgz',
    'tar -czf out.tgz src',
    'xargs rm',
    'xargs -n 1 sh -c id',
    'sort -o /tmp/x f',
    'sort --output=/tmp/x f',
    'sort --compress-program=sh f',
    "awk 'BEGIN{system(\"id\")}'",
    "awk '{print > \"/tmp/x\"}' f",
    'fd -x rm',
    'man -P sh ls',
    'env sh -c id',
  ]
  for (const command of dangerous) {
    it(`asks for \`${command}\` under read-only allow rules, saying which flag`, () => {
      const decision = f.decide('default', bash(command), { allow: allowAll })
      expect(decision.action).toBe('ask')
      expect(decision.reason).toMatch(/allow rules cover it only when they name/)
    })
  }

  it('denies dangerous flags in plan mode, where rules vouch for commands', () => {
    expect(f.decide('plan', bash('git log --output=/tmp/x'), { allow: allowAll }).action).toBe('deny')
    expect(f.decide('plan', bash('git log --oneline'), { allow: allowAll }).action).toBe('allow')
  })

  it('still allows the reading forms of the same commands', () => {
    for (const c of ['find . -name x', 'git log --oneline -5', 'git diff HEAD~1', 'sed -n 1,5p f', "sed 's/a/b/' f", 'rg -n x', 'tar -tf a.tar', 'sort -n f', "awk '{print $1}' f", 'xargs', 'env', 'git log -c', 'fd -e ts']) {
      expect(f.decide('default', bash(c), { allow: allowAll }).action, c).not.toBe('ask')
    }
  })

  it('lets a rule that names the flag allow it', () => {
    expect(f.decide('default', bash('sed -i s/a/b/ f'), { allow: ['Bash(sed -i:*)'] }).action).toBe('allow')
    expect(f.decide('default', bash('find . -delete'), { allow: ['Bash(find . -delete)'] }).action).toBe('allow')
    expect(f.decide('default', bash('find . -delete'), { allow: ['Bash'] }).action).toBe('allow')
  })

  it('names the flag and what it does', () => {
    expect(dangerousUse({ words: ['git', 'log', '--output=/x'], text: '' })).toEqual({ flag: '--output', why: 'git --output writes its output to a file' })
    expect(dangerousUse({ words: ['find', '.', '-exec', 'id', ';'], text: '' })?.why).toBe('find -exec runs a command on each file it finds')
    expect(dangerousUse({ words: ['cat', 'f'], text: '' })).toBeUndefined()
  })
})

describe('script runners', () => {
  const runners = ['npm test', 'npm run build', 'npx vitest', 'yarn test', 'pnpm test', 'make', 'make install', 'just build', 'cargo run', 'cargo test', 'go test ./...', 'pytest', 'python -m pytest', 'bun test']
  it('are allowed by a rule only in a trusted workspace', () => {
    for (const command of runners) {
      const rules = { allow: [`Bash(${command})`] }
      const untrusted = f.decide('default', bash(command), rules)
      expect(untrusted.action, command).toBe('ask')
      expect(untrusted.reason, command).toMatch(/runs what the repository defines.*not trusted.*rein trust/)
      expect(f.decide('default', bash(command), rules, { workspaceTrusted: true }).action, command).toBe('allow')
    }
  })

  it('are told apart from commands that only read', () => {
    expect(scriptRunner({ words: ['npm', 'view', 'x'], text: '' })).toBeUndefined()
    expect(scriptRunner({ words: ['cargo', 'metadata'], text: '' })).toBeUndefined()
    expect(scriptRunner({ words: ['NODE_ENV=test', 'npm', 'test'], text: '' })).toMatch(/npm runs what the repository defines/)
  })
})
