// Every real corpus screen (fixtures/screens, real captures) through buildCard,
// checked against the scenario's expected.json: headline, blocked, permission_mode.
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { AgentStatus } from '../../../src/herdr/types'
import { buildCard, explainCard } from '../../../src/card/build'
import { grammarFor } from '../../../src/card/registry'
import { cleanScreen } from '../../../src/card/clean'

const ROOT = join(import.meta.dir, '../../../fixtures/screens')
import { FAKE_TITLE, fakeAgent } from '../../support/agent'
import { onCard } from '../../support/blocked'

interface Expected {
  agent: string
  screens: Record<
    string,
    {
      agent_status: AgentStatus
      permission_mode: string | null
      headline: string | null
      blocked?: {
        question: string
        options: { index: number; label: string; selected: boolean; free_text?: true }[]
        questions?: { titles: string[]; current: number }
      }
    }
  >
}

// chrome that must never reach detail/transcript
const ESC = /\u001b/
const BOX = /[─━│┃╭╮╰╯╌╹▀├└┌┐┘┤┬┴┼▐▛▜▝▘█]/

// A few .ansi/.recent.txt captures were taken a moment after the .txt one and show a later
// frame; expected.json describes the .txt. What those later frames really show:
const laterFrame: Record<string, { headline?: string }> = {
  // turn 2 has produced its first prose line by then ("● Turn 2, step 1: …" above Bash running)
  'cc-long/02-turn2-working.ansi': { headline: 'Turn 2, step 1: listing generated rows.' },
  'cc-long/02-turn2-working.recent.txt': { headline: 'Turn 2, step 1: listing generated rows.' },
  // the retry counter moved on between the two captures
  'cc332-errors/01-retrying.recent.txt': { headline: 'API error · retrying in 2s · attempt 2/10' },
  'cc332-errors-more/02-rate-limit-retrying.recent.txt': { headline: 'API error · retrying in 2s · attempt 2/10' },
}

// The shown tab of a several-question form is marked by colour only: from plain text
// (.txt, .recent.txt) the card can only guess it (the first unanswered tab) and names the
// guess (claude.dialog.tabs-guess); the .ansi capture, as herdr gives it, is read exactly.
const tabGuessFromPlainText: Record<string, number> = { 'cc332-askuser-more/09-three-tabs-second': 1 }

// An answer typed into a text input replaces its words; only the colours (the inverse-video
// text cursor in the row) still show it is the input: from plain text free_text is unknown.
const freeTextOnlyInColour = new Set(['cc332-rules/05-bash-amend-typed', 'cc332-plan-more/05-plan-review-feedback-typed'])

// Numbered menus herdr does not call blocked (/model's picker): the card reads the
// conversation, but dialog() still sees the numbered rows, so POST /send's digit safety
// (a digit picks at once) holds there too.
// (the number of rows dialog() reads as options)
const menus: Record<string, number> = {
  'cc332-slash-commands/01-model-picker': 5,
  'cc332-slash-commands/02-model-picker-down': 5,
  'cc332-model-switch/01-model-picker-sonnet': 5,
  'cc332-panels/07-memory': 3,
  'cc332-card4/10-model-picker': 5,
}

// pi and opencode have grammars of their own, checked in pi-opencode-corpus.test.ts.
const all = readdirSync(ROOT).filter((d) => existsSync(join(ROOT, d, 'expected.json')))
// cc-* = Claude Code 2.1.197 (the shared corpus), cc332-* = 2.1.332 (scripts/capture)
const scenarios = all.filter((d) => /^cc\d*-/.test(d))
const byVersion = (v: string) => scenarios.filter((d) => JSON.parse(readFileSync(join(ROOT, d, 'expected.json'), 'utf8')).agent_version === v)

test('fixtures are present: 9 scenarios of 2.1.197, 30 of 2.1.332; 13 pi/opencode (3 of them pi 1.6.0) and 17 codex ones are checked in pi-opencode-corpus and codex-corpus', () => {
  expect(scenarios.filter((d) => d.startsWith('cc-')).length).toBe(9)
  expect(byVersion('2.1.332').length).toBe(30)
  expect(all.length - scenarios.length).toBe(30)
})

for (const scenario of scenarios) {
  const expected: Expected = JSON.parse(readFileSync(join(ROOT, scenario, 'expected.json'), 'utf8'))
  const dedicated = expected.agent === 'claude'
  describe(scenario, () => {
    for (const [label, want] of Object.entries(expected.screens)) {
      for (const variant of ['.txt', '.ansi', '.recent.txt']) {
        const file = join(ROOT, scenario, label + variant)
        if (!existsSync(file)) continue
        test(`${label}${variant}`, () => {
          const screen = readFileSync(file, 'utf8')
          const card = buildCard(fakeAgent(expected.agent, want.agent_status), screen)
          expect(card.agent_status).toBe(want.agent_status)
          expect(card.agent_kind).toBe(expected.agent)
          expect(card.pane_id).toBe('w1:p1')
          for (const text of [card.headline, card.detail, ...(card.transcript ?? [])]) {
            expect(text).not.toMatch(ESC)
            expect(text).not.toMatch(BOX)
          }
          expect((card.transcript ?? []).length).toBeLessThanOrEqual(12)
          if (dedicated) {
            expect(card.parsed).toBe(true)
            const later = laterFrame[`${scenario}/${label}${variant}`]
            expect(card.headline).toBe(later?.headline ?? want.headline ?? FAKE_TITLE)
            expect(card.permission_mode).toBe(want.permission_mode ?? undefined)
            const guess = variant === '.ansi' ? undefined : tabGuessFromPlainText[`${scenario}/${label}`]
            if (guess !== undefined && want.blocked?.questions) {
              const guessed = { ...want.blocked, questions: { ...want.blocked.questions, current: guess } }
              expect(card.blocked).toEqual(onCard('claude', guessed))
              const explained = explainCard(fakeAgent(expected.agent, want.agent_status), screen)
              expect(explained.decisions['blocked.questions']?.rule).toBe('claude.dialog.tabs-guess')
            } else if (variant !== '.ansi' && freeTextOnlyInColour.has(`${scenario}/${label}`) && want.blocked) {
              const plain = { ...want.blocked, options: want.blocked.options.map(({ free_text, ...o }) => o) }
              expect(card.blocked).toEqual(onCard('claude', plain))
            } else expect(card.blocked).toEqual(onCard('claude', want.blocked))
            // the grammar's own dialog() agrees with the card (used by POST /send)
            const dialog = grammarFor('claude').dialog!(cleanScreen(screen))
            if (menus[`${scenario}/${label}`]) expect(dialog?.options.length).toBe(menus[`${scenario}/${label}`])
            // (the tabs of a several-question form are read from the whole layout, only by read())
            // (dialog() is given the plain screen, as POST /send does: no colours)
            else if (!freeTextOnlyInColour.has(`${scenario}/${label}`)) expect(dialog).toEqual(want.blocked && { ...want.blocked, questions: undefined })
            expect(grammarFor('claude').permissionMode!(screen)).toBe(want.permission_mode ?? undefined)
          } else {
            expect(card.parsed).toBe(false)
            expect(card.blocked).toBeUndefined()
            expect(card.permission_mode).toBeUndefined()
            expect(card.headline.length).toBeGreaterThan(0)
          }
        })
      }
    }
  })
}
