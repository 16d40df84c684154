// `gothalo explain` on every fixture screen of every kind and version: the card it prints
// is the card GET /agent-state builds, every field names a rule of the grammar's manifest
// (or the card's own), and the regions lie on the screen. Plus the command itself: usage
// errors, a live pane through the fake herdr, and the executable end to end.
import { describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { explainCard } from '../../src/card/build'
import { cleanScreen } from '../../src/card/clean'
import { grammarFor } from '../../src/card/registry'
import { cardRules, EXPLAINED_FIELDS } from '../../src/card/rules'
import { explainMain, type ExplainIO } from '../../src/cli/explain'
import { entriesOf } from '../../src/card/seen'
import { claudeVocabulary } from '../../src/card/grammars/claude-vocabulary'
import { piVocabulary } from '../../src/card/grammars/pi-vocabulary'
import { opencodeVocabulary } from '../../src/card/grammars/opencode-vocabulary'
import { fakeAgent } from '../support/agent'

const ROOT = join(import.meta.dir, '../..')
const SCREENS = join(ROOT, 'fixtures/screens')

function io(files: Record<string, string> = {}) {
  const out: string[] = []
  const err: string[] = []
  const x: ExplainIO = {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    readFile: (p) => {
      if (p in files) return files[p]
      return readFileSync(p, 'utf8')
    },
    env: {},
  }
  return { io: x, out: () => out.join(''), err: () => err.join('') }
}

const scenarios = readdirSync(SCREENS).filter((d) => existsSync(join(SCREENS, d, 'expected.json')))

describe('explain on every fixture screen', () => {
  let screens = 0
  for (const scenario of scenarios) {
    const expected = JSON.parse(readFileSync(join(SCREENS, scenario, 'expected.json'), 'utf8'))
    const kind: string = expected.agent
    const known = new Set([...grammarFor(kind).rules.map((r) => r.id), ...cardRules.map((r) => r.id)])
    for (const [label, want] of Object.entries<any>(expected.screens)) {
      const file = join(SCREENS, scenario, `${label}.txt`)
      if (!existsSync(file)) continue
      screens++
      test(`${scenario}/${label}`, async () => {
        const x = io()
        const code = await explainMain(['--agent', kind, '--status', want.agent_status, '--title', 'T', '--json', file], x.io)
        expect(x.err()).toBe('')
        expect(code).toBe(0)
        const e = JSON.parse(x.out())
        const screen = readFileSync(file, 'utf8')
        const direct = explainCard(fakeAgent(kind, want.agent_status, { pane_id: 'file', terminal_title_stripped: 'T' }), screen)
        expect(e.card.headline).toBe(direct.card.headline)
        expect(e.card.blocked).toEqual(direct.card.blocked)
        expect(e.card.permission_mode).toBe(direct.card.permission_mode)
        // every field the card has is accounted for by a known rule, with a reason
        expect(e.decisions.headline).toBeDefined()
        if (e.card.blocked) expect(e.decisions['blocked.question']).toBeDefined()
        if (e.card.permission_mode) expect(e.decisions.permission_mode).toBeDefined()
        for (const f of EXPLAINED_FIELDS) {
          const d = e.decisions[f]
          if (!d) continue
          expect(known.has(d.rule)).toBe(true)
          expect(d.why.length).toBeGreaterThan(0)
        }
        expect(e.rule).toMatch(/^[\x20-\x7e]+$/)
        expect(e.rule.split(', ')[0]).toBe(e.decisions.headline.rule)
        const rows = cleanScreen(screen).split('\n').length
        for (const r of e.regions) {
          expect(r.from).toBeGreaterThanOrEqual(0)
          expect(r.to).toBeLessThanOrEqual(rows)
          expect(r.from).toBeLessThanOrEqual(r.to)
        }
        // the text form names the same rules
        const t = io()
        expect(await explainMain(['--agent', kind, '--status', want.agent_status, '--title', 'T', file], t.io)).toBe(0)
        expect(t.out()).toContain(`X-Gothalo-Rule: ${e.rule}\n`)
      })
    }
  }
  test('covers every kind', () => {
    expect(screens).toBeGreaterThan(70)
    const kinds = new Set(scenarios.map((s) => JSON.parse(readFileSync(join(SCREENS, s, 'expected.json'), 'utf8')).agent))
    expect([...kinds].sort()).toEqual(['claude', 'codex', 'opencode', 'pi'])
  })
})

describe('rule manifests', () => {
  for (const kind of ['claude', 'pi', 'opencode', 'codex']) {
    test(`${kind}: ids unique, namespaced, each with a field and a sentence`, () => {
      const rules = grammarFor(kind).rules
      expect(new Set(rules.map((r) => r.id)).size).toBe(rules.length)
      for (const r of rules) {
        expect(r.id).toMatch(new RegExp(`^(?:${kind}|fallback)\\.[a-z0-9-]+(?:\\.[a-z0-9-]+)*$`))
        expect(r.says.length).toBeGreaterThan(10)
      }
    })
  }
})

describe('vocabulary tables name the versions each wording was seen in', () => {
  const tables: [string, object][] = [
    ['claude', claudeVocabulary],
    ['pi', piVocabulary],
    ['opencode', opencodeVocabulary],
  ]
  for (const [kind, table] of tables) {
    test(kind, () => {
      const entries = entriesOf(table)
      expect(entries.length).toBeGreaterThan(10)
      for (const e of entries) {
        const seenIn = (e.re as RegExp & { seen?: string[] }).seen
        expect({ path: e.path, seen: Array.isArray(seenIn) && seenIn.length > 0 }).toEqual({ path: e.path, seen: true })
      }
    })
  }
})

describe('the command', () => {
  const file = join(SCREENS, 'cc-bash-prompt/01-bash-prompt.txt')

  test('without --status a dialog on screen means blocked, and the text form says it assumed so', async () => {
    const x = io()
    expect(await explainMain(['--agent', 'claude', file], x.io)).toBe(0)
    expect(x.out()).toContain('status blocked, assumed from the screen')
    expect(x.out()).toMatch(/blocked\.options\s+claude\.dialog\.options-numbered/)
    expect(x.out()).toMatch(/rows\s+\d+-\d+\s+dialog/)
  })

  const bad: [string[], RegExp][] = [
    [[], /want a FILE/],
    [[file], /want --agent/],
    [['--agent', 'aider', file], /no grammar for agent "aider"/],
    [['--agent', 'claude', '--status', 'sleeping', file], /--status: want one of/],
    [['--agent', 'claude', '--frobnicate', file], /unknown flag --frobnicate/],
    [['--agent', 'claude', file, file], /one screen at a time/],
    [['--pane', 'w1:p1', '--agent', 'claude'], /no FILE and no --agent/],
    [['--agent'], /--agent wants a value/],
  ]
  for (const [argv, msg] of bad) {
    test(`usage error: ${argv.join(' ') || '(nothing)'}`, async () => {
      const x = io()
      expect(await explainMain(argv, x.io)).toBe(2)
      expect(x.err()).toMatch(msg)
      expect(x.err()).toContain('usage:')
      expect(x.out()).toBe('')
    })
  }

  test('a file that cannot be read: exit 1 and the reason', async () => {
    const x = io()
    expect(await explainMain(['--agent', 'claude', join(tmpdir(), 'no-such-screen.txt')], x.io)).toBe(1)
    expect(x.err()).toMatch(/cannot read .*no-such-screen\.txt/)
  })

  test('--help', async () => {
    const x = io()
    expect(await explainMain(['--help'], x.io)).toBe(0)
    expect(x.out()).toContain('gothalo explain --pane PANE_ID')
  })

  test('the executable: explain --agent FILE, and --pane on a live (fake) herdr', () => {
    const bun = process.execPath
    const run = (args: string[], env: Record<string, string> = {}) =>
      Bun.spawnSync([bun, join(ROOT, 'src/main.ts'), 'explain', ...args], { env: { ...process.env, ...env }, cwd: ROOT })
    const r = run(['--agent', 'claude', '--status', 'blocked', file])
    expect(r.exitCode).toBe(0)
    expect(r.stdout.toString()).toContain('"question": "Do you want to proceed?"')

    const dir = mkdtempSync(join(tmpdir(), 'gothalo-explain-'))
    const state = join(dir, 'state.json')
    writeFileSync(
      state,
      JSON.stringify({
        panes: [{ pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', screen_file: file, agent: { agent: 'claude', agent_status: 'blocked' } }],
      }),
    )
    const env = { GOTHALO_HERDR: join(ROOT, 'fixtures/herdr/herdr'), FAKE_HERDR_BUN: bun, FAKE_HERDR_STATE: state, FAKE_HERDR_LOG: join(dir, 'log') }
    const live = run(['--pane', 'w1:p1', '--json'], env)
    expect(live.stderr.toString()).toBe('')
    expect(live.exitCode).toBe(0)
    const e = JSON.parse(live.stdout.toString())
    expect(e.card.pane_id).toBe('w1:p1')
    expect(e.card.blocked.question).toBe('Do you want to proceed?')
    expect(e.decisions['blocked.options'].rule).toBe('claude.dialog.options-numbered')

    const missing = run(['--pane', 'w9:p9'], env)
    expect(missing.exitCode).toBe(1)
    expect(missing.stderr.toString()).toMatch(/herdr agent get w9:p9/)
  })
})
