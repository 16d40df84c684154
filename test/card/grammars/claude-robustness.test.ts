// Hand-made variants around the real corpus screens: other pane widths, stale spinners,
// prose that looks like a question, colours, cut screens, empty screens, binary garbage.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { AgentInfo, AgentStatus } from '../../../src/herdr/types'
import { buildCard } from '../../../src/card/build'
import { cleanScreen } from '../../../src/card/clean'
import { claudeGrammar, readClaude } from '../../../src/card/grammars/claude'
import { fallbackGrammar } from '../../../src/card/grammars/fallback'
import { grammarFor } from '../../../src/card/registry'
import { onCard } from '../../support/blocked'
import { fakeAgent } from '../../support/agent'

const ROOT = join(import.meta.dir, '../../../fixtures/screens')
const TITLE = 'Fix the login bug'
const screen = (scenario: string, label: string) => readFileSync(join(ROOT, scenario, label), 'utf8')

const agent = (status: AgentStatus, kind = 'claude', extra: Partial<AgentInfo> = {}) => fakeAgent(kind, status, { terminal_title_stripped: TITLE, ...extra })

const RULE = (w: number) => '─'.repeat(w)
const ESC = /\u001b/
const BOX = /[─━│┃╭╮╰╯╌╹▀├└┌┐┘┤┬┴┼█]/

/** Re-render a 120-column Claude screen at another width: rules resized, long rows
 *  word-wrapped with continuation rows at the text column (as Ink does), banner dropped. */
function rewrap(text: string, width: number): string {
  const out: string[] = []
  for (const line of text.split('\n')) {
    if (/^[╭│╰]/.test(line)) continue
    if (/^─+$/.test(line.trim()) && line.trim().length >= 40) {
      out.push(RULE(width))
      continue
    }
    if ([...line].length <= width) {
      out.push(line)
      continue
    }
    const col = (/^\s*(?:[●⏺❯›]\s+)?(?:\d+\.\s+)?/.exec(line)?.[0] ?? '').length
    const pad = ' '.repeat(col)
    let row = line.slice(0, col)
    let rowHasWord = false
    for (const word of line.slice(col).split(' ')) {
      if (rowHasWord && row.length + 1 + word.length > width) {
        out.push(row)
        row = pad + word
      } else {
        row += (rowHasWord ? ' ' : '') + word
      }
      rowHasWord = true
    }
    out.push(row)
  }
  return out.join('\n')
}

describe('other pane widths', () => {
  const cases: [string, string, AgentStatus][] = [
    ['cc-bash-prompt', '01-bash-prompt.txt', 'blocked'],
    ['cc-plan', '01-plan-approval.txt', 'blocked'],
    ['cc-askuser', '02-question-down.txt', 'blocked'],
    ['cc-tools-mix', '03-webfetch-prompt.txt', 'blocked'],
    ['cc-tools-mix', '04-after-webfetch.txt', 'done'],
    ['cc-long', '01-turn1-done.txt', 'done'],
    ['cc-accept-edits', '02-done-accept-edits.txt', 'done'],
  ]
  for (const [scenario, label, status] of cases) {
    const original = buildCard(agent(status), screen(scenario, label))
    for (const width of [80, 200]) {
      test(`${scenario}/${label} at ${width} columns reads the same`, () => {
        const card = buildCard(agent(status), rewrap(screen(scenario, label), width))
        expect(card.headline).toBe(original.headline)
        expect(card.blocked).toEqual(original.blocked)
        expect(card.permission_mode).toBe(original.permission_mode)
      })
    }
  }

  test('the re-wrap really wraps: a long option and the plan question span two rows at 80', () => {
    const narrow = rewrap(screen('cc-bash-prompt', '01-bash-prompt.txt'), 80).split('\n')
    expect(narrow.some((l) => /^\s+2\. Yes, and don't ask again/.test(l) && !l.includes('/proj'))).toBe(true)
    const plan = rewrap(screen('cc-plan', '01-plan-approval.txt'), 80).split('\n')
    expect(plan.some((l) => l.trim() === 'proceed?')).toBe(true)
  })

  test('a long prose line wrapped at 80 columns is one logical headline line', () => {
    const long = 'The refactor is finished: every handler now goes through the shared session check, and the old helper is gone.'
    const s = ['❯ Refactor the handlers', '', `● ${long}`, '', '✻ Worked for 12s', '', RULE(120), '❯ ', RULE(120), '  ? for shortcuts'].join('\n')
    for (const width of [60, 80, 120]) {
      const card = buildCard(agent('done'), rewrap(s, width))
      expect(card.headline).toBe(long)
    }
  })
})

describe('hand-made screens', () => {
  const composer = (footer = '  ? for shortcuts · ← for agents') => [RULE(100), '❯ ', RULE(100), footer]

  test('a stale spinner row in scrollback above a finished turn is ignored', () => {
    const s = [
      '❯ Build it',
      '',
      '✻ Mustering… (17s · ↓ 25 tokens)',
      '  ⎿  Tip: Use /clear to start fresh',
      '',
      '● The build is green.',
      '',
      '✻ Worked for 25s',
      '',
      ...composer(),
    ].join('\n')
    const card = buildCard(agent('done'), s)
    expect(card.headline).toBe('The build is green.')
    expect(card.detail).toBe('The build is green.')
    expect(card.transcript!.join('\n')).not.toContain('Mustering')
    expect(card.transcript!.join('\n')).not.toContain('Tip:')
    expect(card.permission_mode).toBe('default')
  })

  test('prose that merely asks "Do you want to…" is not a dialog', () => {
    const s = [
      '❯ Tidy the repo',
      '',
      '● I found two stale branches. Do you want to delete them?',
      '  1. Yes',
      '  2. No',
      '',
      '✻ Worked for 3s',
      '',
      ...composer(),
    ].join('\n')
    const card = buildCard(agent('idle'), s)
    expect(card.blocked).toBeUndefined()
    expect(card.headline).toBe('2. No')
    expect(claudeGrammar.dialog!(s)).toBeUndefined()
    // even if herdr said blocked, no options are invented from prose above the composer
    expect(buildCard(agent('blocked'), s).blocked!.options).toEqual([])
  })

  test('a working agent that has only run tools: title as headline, tool step as detail', () => {
    const s = [
      '❯ Run the slow build',
      '',
      '● Bash(sleep 10 && echo build-ok)',
      '  ⎿  Running… (6s)',
      '',
      '✻ Mustering… (21s · ↓ 42 tokens)',
      '',
      ...composer('  ⏵⏵ bypass permissions on (shift+tab to cycle) · esc to interrupt'),
    ].join('\n')
    const reading = readClaude(s, agent('working'))
    expect(reading.rule).toBe('claude.turn.tool-title')
    const card = buildCard(agent('working'), s)
    expect(card.headline).toBe(TITLE)
    expect(card.detail).toBe('Bash(sleep 10 && echo build-ok) · Running… (6s)')
    expect(card.permission_mode).toBe('bypassPermissions')
    // without a title the step itself is the headline
    const untitled = buildCard(agent('working', 'claude', { terminal_title_stripped: undefined }), s)
    expect(untitled.headline).toBe('Bash(sleep 10 && echo build-ok) · Running… (6s)')
  })

  test('ANSI-coloured screen and draft read like the plain one', () => {
    const plain = screen('cc-accept-edits', '02-done-accept-edits.txt')
    const coloured =
      '\u001b]0;✳ Claude Code\u0007' +
      plain
        .split('\n')
        .map((l, i) => (i % 2 ? `\u001b[38;5;${i % 255}m${l}\u001b[0m` : `\u001b[1;3m${l}\u001b[22;23m`))
        .join('\r\n')
        .replace('❯ ', '❯\u00a0\u001b[7mhalf-typed draft\u001b[27m')
    const a = buildCard(agent('done'), plain)
    const b = buildCard(agent('done'), coloured)
    expect(b.headline).toBe(a.headline)
    expect(b.permission_mode).toBe('acceptEdits')
    expect(b.detail).toBe(a.detail)
    for (const t of [b.headline, b.detail, ...(b.transcript ?? [])]) expect(t).not.toMatch(ESC)
  })

  test('empty and blank screens give a card from herdr alone', () => {
    for (const s of ['', '\n\n\n', '   \n  ']) {
      const card = buildCard(agent('blocked'), s)
      expect(card.headline).toBe(TITLE)
      expect(card.blocked).toEqual(onCard('claude', { question: TITLE, options: [] }))
      expect(card.transcript).toBeUndefined()
      expect(buildCard(agent('idle', 'pi'), s).headline).toBe(TITLE)
    }
  })

  test('an unreadable terminal (screen undefined) still answers', () => {
    const card = buildCard(agent('blocked'), undefined)
    expect(card).toEqual({
      pane_id: 'w1:p1',
      agent_kind: 'claude',
      agent_status: 'blocked',
      headline: TITLE,
      detail: TITLE,
      blocked: onCard('claude', { question: TITLE, options: [] }),
      parsed: true,
    })
    const bare = buildCard(agent('working', 'claude', { terminal_title_stripped: undefined }), undefined)
    expect(bare.headline).toBe('Working…')
    expect(buildCard(agent('blocked', 'aider'), undefined).blocked).toBeUndefined()
  })
})

describe('cut screens', () => {
  const full = screen('cc-bash-prompt', '01-bash-prompt.txt').split('\n')
  const question = full.findIndex((l) => l.includes('Do you want to proceed?'))

  test('every cut of a Bash prompt gives a card; a cut inside the dialog keeps what is there', () => {
    for (let n = 0; n <= full.length; n++) {
      const card = buildCard(agent('blocked'), full.slice(0, n).join('\n'))
      expect(card.blocked).toBeDefined()
      expect(typeof card.blocked!.question).toBe('string')
      expect(card.blocked!.question.length).toBeGreaterThan(0)
      for (const t of [card.headline, card.detail, ...(card.transcript ?? [])]) expect(t).not.toMatch(BOX)
    }
  })

  test('cut right under the question: the question, no options', () => {
    const card = buildCard(agent('blocked'), full.slice(0, question + 1).join('\n'))
    expect(card.blocked).toEqual(onCard('claude', { question: 'Do you want to proceed?', options: [] }))
    expect(card.headline).toBe('Do you want to proceed?')
  })

  test('cut after the first option: the options read so far', () => {
    const card = buildCard(agent('blocked'), full.slice(0, question + 2).join('\n'))
    expect(card.blocked).toEqual(
      onCard('claude', {
        question: 'Do you want to proceed?',
        options: [{ index: 1, label: 'Yes', selected: true }],
      }),
    )
  })

  test('cut from the top (scrolled): the dialog still reads', () => {
    const card = buildCard(agent('blocked'), full.slice(question - 1).join('\n'))
    expect(card.blocked!.options.map((o) => o.label)).toEqual([
      'Yes',
      "Yes, and don't ask again for mkdir -p build and date commands in /home/me/cc-bash-prompt/proj",
      'No',
    ])
  })
})

describe('garbage', () => {
  // deterministic PRNG (mulberry32) so a failure is reproducible
  function rng(seed: number) {
    return () => {
      seed |= 0
      seed = (seed + 0x6d2b79f5) | 0
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296
    }
  }
  const rand = rng(42)
  const samples: string[] = []
  for (let k = 0; k < 60; k++) {
    const bytes = new Uint8Array(200 + Math.floor(rand() * 3000))
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(rand() * 256)
    samples.push(new TextDecoder('utf-8', { fatal: false }).decode(bytes))
  }
  // garbage mixed into real structure, and structural glyphs alone
  samples.push('❯\n❯\n❯ 1.\n─\n────\n❯ 1. \n 2.\n⎿\n●\n● (\n✻ …', '─'.repeat(5000), '❯ 1. a\n'.repeat(500))
  samples.push(screen('cc-plan', '01-plan-approval.ansi').slice(0, 3333) + '\u001b[38;5')

  test('binary garbage never throws and never leaks control bytes', () => {
    for (const s of samples) {
      for (const kind of ['claude', 'pi', 'opencode', 'aider', undefined]) {
        for (const status of ['idle', 'blocked', 'working'] as AgentStatus[]) {
          const card = buildCard(agent(status, 'claude', { agent: kind }), s)
          expect(typeof card.headline).toBe('string')
          for (const t of [card.headline, card.detail, ...(card.transcript ?? [])]) {
            expect(t).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/)
          }
          // only a kind without a grammar never answers blocked
          if (kind === 'aider' || kind === undefined) expect(card.blocked).toBeUndefined()
        }
      }
      expect(() => claudeGrammar.dialog!(s)).not.toThrow()
      expect(() => claudeGrammar.permissionMode!(s)).not.toThrow()
    }
  })

  // A record that does not fit herdr's schema never gets here: it is a 502 at the herdr edge (test/routes/herdr-failures.test.ts).
  test('an AgentInfo with only the required fields yields a card of kind unknown', () => {
    const bare: AgentInfo = { pane_id: 'x', agent_status: 'idle', state_change_seq: 0 }
    expect(buildCard(bare, 'hello')).toMatchObject({ pane_id: 'x', agent_kind: 'unknown', agent_status: 'idle' })
    expect(buildCard({ ...bare, agent: '' }, undefined)).toMatchObject({ agent_kind: 'unknown', headline: 'Idle', parsed: false })
  })

  test('cleanScreen strips escapes, controls and NBSP', () => {
    expect(cleanScreen('\u001b[1mA\u001b[0m\u00a0B\u0007\r\nC  \u001b]0;title\u0007\n\n')).toBe('A B\nC')
    expect(cleanScreen(undefined)).toBe('')
    expect(cleanScreen('x\u001b[38;5')).toBe('x')
  })
})

describe('registry', () => {
  test('claude has a grammar; kinds without one get the fallback', () => {
    expect(grammarFor('claude')).toBe(claudeGrammar)
    expect(grammarFor(' Claude ')).toBe(claudeGrammar)
    for (const k of ['pi', 'opencode', 'codex']) expect(grammarFor(k)).not.toBe(fallbackGrammar)
    for (const k of ['aider', '', undefined]) expect(grammarFor(k)).toBe(fallbackGrammar)
  })

  test('the fallback: last readable line, no box art, no blocked', () => {
    const s = screen('opencode', '09-bash-permission.txt')
    const card = buildCard(agent('blocked', 'aider'), s)
    expect(card.parsed).toBe(false)
    expect(card.blocked).toBeUndefined()
    expect(card.headline).toBe('$ touch /home/me/oc/proj/made.txt && echo made')
    expect(card.transcript!.length).toBeLessThanOrEqual(12)
    for (const t of [card.detail, ...card.transcript!]) expect(t).not.toMatch(BOX)
    // pi: the spinner row and the footer (cwd, token counter) are chrome
    const pi = buildCard(agent('done', 'aider'), screen('pi-basic', '04-done.txt'))
    expect(pi.headline).toBe('All done: the environment works, the failing cat was reported, and notes.md is now final.')
    const piWorking = buildCard(agent('working', 'aider'), screen('pi-basic', '01-working.txt'))
    expect(piWorking.headline).not.toContain('Working...')
    expect(piWorking.detail).not.toContain('%/200k')
  })
})
