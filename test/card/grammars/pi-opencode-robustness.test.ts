// pi and opencode grammars on what the corpus does not show: garbage, empty and cut
// screens, other widths, colour-only selection drawn other ways, tool output with blank
// runs. Never a throw, never control bytes or frame glyphs in the card.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { AgentStatus } from '../../../src/herdr/types'
import { buildCard } from '../../../src/card/build'
import { cleanScreen } from '../../../src/card/clean'
import { opencodeGrammar, readOpencode } from '../../../src/card/grammars/opencode'
import { styledRows } from '../../../src/card/sgr'
import { groupsOf, readPi } from '../../../src/card/grammars/pi'
import { fakeAgent } from '../../support/agent'
import { onCard } from '../../support/blocked'

const ROOT = join(import.meta.dir, '../../../fixtures/screens')
const BOX = /[─━│┃╭╮╰╯╌╹▀▄├└┌┐┘┤┬┴┼▐▛▜▝▘█]/
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/
const screen = (scenario: string, file: string) => readFileSync(join(ROOT, scenario, file), 'utf8')

function checkClean(kind: string, status: AgentStatus, s: string) {
  const card = buildCard(fakeAgent(kind, status), s)
  expect(typeof card.headline).toBe('string')
  for (const t of [card.headline, card.detail, ...(card.transcript ?? [])]) {
    expect(t).not.toMatch(CONTROL)
    expect(t).not.toMatch(BOX)
  }
  expect((card.transcript ?? []).length).toBeLessThanOrEqual(12)
  if (status === 'blocked') expect(Array.isArray(card.blocked!.options)).toBe(true)
  else expect(card.blocked).toBeUndefined()
  return card
}

describe('garbage never throws', () => {
  // deterministic pseudo-random bytes
  let seed = 42
  const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
  const samples: string[] = ['', '\n\n\n', '   \n  ', '\u001b[', '\u001b]0;title', '┃\n┃\n╹▀▀▀▀▀▀', '△ Permission required', '─'.repeat(4000)]
  for (let k = 0; k < 40; k++) {
    const bytes = new Uint8Array(100 + Math.floor(rand() * 3000))
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(rand() * 256)
    samples.push(new TextDecoder('utf-8', { fatal: false }).decode(bytes))
  }
  // structure without content
  samples.push('  ┃\n  ┃  1. \n  ┃  ↑↓ select\n  ┃', '  ┃  △ \n  ┃   ⇆ select  enter confirm', ' $ \n\n Took', '─────\n─────\n', ' ⠏ Working...\n')
  samples.push('  ┃  1. a\n'.repeat(400) + '  ┃  ↑↓ select  enter submit  esc dismiss', ' x\n\n\n'.repeat(2000))

  test('every sample, every status, both kinds: a clean card', () => {
    for (const s of samples)
      for (const kind of ['pi', 'opencode']) for (const status of ['idle', 'working', 'blocked', 'done'] as AgentStatus[]) checkClean(kind, status, s)
  })

  test('dialog() and the readers take anything (even non-strings)', () => {
    for (const s of [...samples, undefined, null, 42] as unknown as string[]) {
      expect(() => opencodeGrammar.dialog!(s)).not.toThrow()
      expect(() => readPi(s, undefined)).not.toThrow()
      expect(() => readOpencode(s, undefined)).not.toThrow()
    }
  })
})

describe('cut screens (a read cut at any row or byte) never throw', () => {
  const files = ['pi-basic', 'pi-new-session', 'opencode'].flatMap((d) =>
    readdirSync(join(ROOT, d))
      .filter((f) => f.endsWith('.ansi') || f.endsWith('.txt'))
      .map((f) => [d, f] as const),
  )
  test('every corpus screen cut at every 7th row and mid-escape', () => {
    let n = 0
    for (const [dir, f] of files) {
      const s = screen(dir, f)
      const kind = dir.startsWith('pi') ? 'pi' : 'opencode'
      const rows = s.split('\n')
      for (let k = 1; k < rows.length; k += 7) {
        checkClean(kind, 'blocked', rows.slice(0, k).join('\n'))
        checkClean(kind, 'working', rows.slice(k).join('\n'))
        n += 2
      }
      const esc = s.indexOf('\u001b[38')
      if (esc >= 0) {
        checkClean(kind, 'blocked', s.slice(0, esc + 4))
        n++
      }
    }
    expect(n).toBeGreaterThan(300)
  })

  test('a question cut below its options is no dialog (no invented options)', () => {
    const s = screen('opencode', '05-question.txt').split('\n').slice(0, 40).join('\n')
    expect(opencodeGrammar.dialog!(s)).toBeUndefined()
  })
})

describe('opencode selection by colour', () => {
  const fr = '\u001b[38;5;140m\u001b[48;5;233m┃\u001b[38;5;15m'
  const plainRow = (n: number, label: string) => `  ${fr}  \u001b[38;5;8m${n}.\u001b[38;5;15m \u001b[38;5;255m${label}\u001b[38;5;15m`
  const hiRow = (n: number, label: string) =>
    `  ${fr}  \u001b[38;5;68m\u001b[48;5;234m${n}.\u001b[38;5;15m \u001b[38;5;75m${label}\u001b[38;5;15m\u001b[48;5;233m`
  const question = (rows: string[]) =>
    [`  ${fr}`, `  ${fr}  Pick one?`, `  ${fr}`, ...rows, `  ${fr}`, `  ${fr}  ↑↓ select  enter submit  esc dismiss`, `  ${fr}`].join('\n')

  test('two options: the one on another background', () => {
    const d = opencodeGrammar.dialog!(question([plainRow(1, 'Yes'), hiRow(2, 'No')]))!
    expect(d.question).toBe('Pick one?')
    expect(d.options).toEqual([
      { index: 1, label: 'Yes', selected: false },
      { index: 2, label: 'No', selected: true },
    ])
  })

  test('inverse video marks the highlight too', () => {
    const inv = `  ${fr}  \u001b[7m3.\u001b[27m Maybe`
    const d = opencodeGrammar.dialog!(question([plainRow(1, 'Yes'), plainRow(2, 'No'), inv]))!
    expect(d.options.map((o) => o.selected)).toEqual([false, false, true])
  })

  test('colours that say nothing: the first option', () => {
    const d = opencodeGrammar.dialog!(question([plainRow(1, 'Yes'), plainRow(2, 'No')]))!
    expect(d.options.map((o) => o.selected)).toEqual([true, false])
  })

  test('truecolor buttons: the one on the accent background', () => {
    const pr = '\u001b[38;2;250;178;131m\u001b[48;2;20;20;20m┃\u001b[39m'
    const s = [
      `  ${pr}`,
      `  ${pr}  △ Permission required`,
      `  ${pr}    # Shell command`,
      `  ${pr}  $ rm -rf build`,
      `  ${pr}\u001b[48;2;30;30;30m   Allow once   \u001b[48;2;250;178;131m Allow always \u001b[48;2;30;30;30m  Reject      ⇆ select  enter confirm`,
      `  ${pr}`,
    ].join('\r\n')
    const card = buildCard(fakeAgent('opencode', 'blocked'), s)
    expect(card.blocked).toEqual(
      onCard('opencode', {
        question: 'Permission required',
        options: [
          { index: 0, label: 'Allow once', selected: false },
          { index: 0, label: 'Allow always', selected: true },
          { index: 0, label: 'Reject', selected: false },
        ],
      }),
    )
    expect(card.detail).toBe('Shell command\n$ rm -rf build')
  })

  test('styled rows line up with the cleaned screen (tabs, NBSP, OSC, CR)', () => {
    const raw = 'a\tb\u00a0c\u001b]0;t\u0007d\u200b\r\n\u001b[1me\u001b[0m\rf\u001b[38;5'
    const rows = styledRows(raw)!
    expect(rows.map((r) => r.text)).toEqual(['a    b cd', 'e', 'f'])
    expect(rows.map((r) => r.text).join('\n')).toBe(cleanScreen(raw))
    for (const r of rows) expect(r.cells.length).toBe(r.text.length)
    expect(styledRows('plain text')).toBeUndefined()
  })
})

describe('opencode layouts the corpus does not show', () => {
  const box = ['  ┃', '  ┃', '  ┃', '  ┃  Build · Model', '  ╹' + '▀'.repeat(60), '   ~/proj   12 (0%)  ctrl+p commands']

  test('wrapped prose is one logical line; the last one is the headline', () => {
    const w = 60
    const rows = [
      '',
      '  ┃',
      '  ┃  Explain',
      '  ┃',
      '',
      '     This answer is long enough that the terminal wraps it onto',
      '     a second row before it ends.',
      '',
      '     ▣  Build · Model · 2.0s',
      '',
      ...box,
    ]
    // the rows are padded to the pane width by the box edge row
    expect(rows.some((r) => r.length >= w)).toBe(true)
    const card = buildCard(fakeAgent('opencode', 'done'), rows.join('\n'))
    expect(card.headline).toBe('This answer is long enough that the terminal wraps it onto a second row before it ends.')
  })

  test('only tools in the current turn: the task title while working, the step when done', () => {
    const rows = ['  ┃', '  ┃  Run it', '  ┃', '', '     $ make test', '', '     ▣  Build · Model', '', ...box]
    expect(buildCard(fakeAgent('opencode', 'working'), rows.join('\n')).headline).toBe('Task title from herdr')
    expect(buildCard(fakeAgent('opencode', 'done'), rows.join('\n')).headline).toBe('$ make test')
  })

  test('a screen that is not opencode degrades to the raw fallback reading', () => {
    const r = readOpencode('just a shell prompt $\nls\nfile.txt', undefined)
    expect(r.parsed).toBe(false)
    expect(r.rule).toBe('opencode.layout.unrecognised')
  })
})

describe('pi layouts the corpus does not show', () => {
  const editor = ['', '─'.repeat(80), '', '─'.repeat(80), '~/proj', '0.1%/200k (auto)   model • medium']

  test('bash output with a run of blank rows stays inside its box', () => {
    const rows = [' Check it.', '', '', ' $ cat file', '', ' top', '', '', '', ' bottom', '', ' Took 0.1s', '', '', ' Looks fine.']
    const kinds = groupsOf(rows).map((g) => g.kind)
    expect(kinds).toEqual(['text', 'tool', 'text'])
    const card = buildCard(fakeAgent('pi', 'done'), [...rows, ...editor].join('\n'))
    expect(card.headline).toBe('Looks fine.')
  })

  test('a run of plain groups alternates prompt / answer after a notice', () => {
    const rows = [' ✓ New session started', '', '', ' Hi', '', '', ' Hello!', '', '', ' And now?', '', '']
    expect(groupsOf(rows).map((g) => g.kind)).toEqual(['notice', 'user', 'text', 'user'])
    // the current turn (after "And now?") has produced nothing yet: no stale headline
    const card = buildCard(fakeAgent('pi', 'working'), [...rows, ' ⠋ Working...', ...editor].join('\n'))
    expect(card.headline).toBe('Task title from herdr')
  })

  test('wrapped prose is joined (pi pads one column each side)', () => {
    // 15 words fill 74 columns + the indent; "longer" (6) would end past column 78
    const first = ' ' + 'word '.repeat(15).trim()
    const rows = [' pi v0.73.1', '', '', ' Go', '', '', first, ' longer end.']
    const card = buildCard(fakeAgent('pi', 'done'), [...rows, ...editor].join('\n'))
    expect(card.headline).toBe('word '.repeat(15).trim() + ' longer end.')
    // a short row is not wrapped: two lines, the last is the headline
    const two = buildCard(fakeAgent('pi', 'done'), [...rows.slice(0, 6), ' Short one.', ' Second line.', ...editor].join('\n'))
    expect(two.headline).toBe('Second line.')
  })

  test('an error the API will not retry ends the turn: the next plain group is the user', () => {
    const rows = [' pi v0.73.1', '', '', ' Go', '', '', ' Error: 400 bad request', '', '', ' Again please', '', '', ' Fine now.']
    expect(groupsOf(rows).map((g) => g.kind)).toEqual(['banner', 'user', 'error', 'user', 'text'])
    // a retryable one: pi retries by itself, its next words (one blank row below) are the assistant's
    const retried = [' pi v0.73.1', '', '', ' Go', '', '', ' Error: 529 overloaded', '', ' Recovered.']
    expect(groupsOf(retried).map((g) => g.kind)).toEqual(['banner', 'user', 'error', 'text'])
    expect(buildCard(fakeAgent('pi', 'done'), [...retried, ...editor].join('\n')).headline).toBe('Recovered.')
    // pi gave up: the turn is over even though the error was a retryable one
    const gaveUp = [
      ' pi v0.73.1',
      '',
      '',
      ' Go',
      '',
      '',
      ' Error: 529 overloaded',
      '',
      ' Error: Retry failed after 3 attempts: 529 overloaded',
      '',
      '',
      ' Still there?',
    ]
    expect(groupsOf(gaveUp).map((g) => g.kind)).toEqual(['banner', 'user', 'error', 'error', 'user'])
  })

  test('"Aborted after 2 retry attempts" ends the turn; the loader row never heads it', () => {
    const rows = [' pi v0.73.1', '', '', ' Go', '', '', ' Half an answer.', '', ' Aborted after 2 retry attempts']
    expect(groupsOf(rows).map((g) => g.kind)).toEqual(['banner', 'user', 'text', 'ended'])
    expect(buildCard(fakeAgent('pi', 'idle'), [...rows, ...editor].join('\n')).headline).toBe('Half an answer.')
    const spinning = [' pi v0.73.1', '', '', ' Go', '', '', ' Working on it.', '', ' ⠋ Retrying (2/3) in 4s... (escape to cancel)']
    expect(buildCard(fakeAgent('pi', 'working'), [...spinning, ...editor].join('\n')).headline).toBe('Working on it.')
  })

  test('a "[compaction]" block is a notice: the turn after it has said nothing yet', () => {
    const rows = [
      ' pi v0.73.1',
      '',
      '',
      ' Go',
      '',
      '',
      ' Answer one.',
      '',
      '',
      ' [compaction]',
      ' Compacted from 162 tokens (ctrl+o to expand)',
      '',
      '',
      ' Next?',
    ]
    expect(groupsOf(rows).map((g) => g.kind)).toEqual(['banner', 'user', 'text', 'notice', 'user'])
  })

  test('a word cut at the last column goes on without a space', () => {
    // 80 columns: the row fills to pi's right padding (79), the next row goes on mid-word
    const cut = ' ' + 'x'.repeat(78)
    const rows = [' pi v0.73.1', '', '', ' Go', '', '', ' Error: 400', cut, ' yz"}}']
    expect(buildCard(fakeAgent('pi', 'done'), [...rows, ...editor].join('\n')).headline).toBe(`Error: 400 ${'x'.repeat(78)}yz"}}`)
  })

  test('a screen that is not pi degrades to the raw fallback reading', () => {
    const r = readPi('$ ls\nfile.txt', undefined)
    expect(r.parsed).toBe(false)
    expect(r.rule).toBe('pi.layout.unrecognised')
  })
})
