// Every real codex corpus screen (fixtures/screens/codex-*, copied from the capture corpus, plus
// codex-trust captured for this grammar) — plain (.txt), coloured (.ansi) and scrollback
// (.recent.txt) — through the codex grammar and through buildCard via the registry,
// against the scenario's expected.json.
import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { AgentStatus } from '../../../src/herdr/types'
import type { DialogReading as Blocked } from '../../../src/card/card'
import { onCard } from '../../support/blocked'
import { buildCard } from '../../../src/card/build'
import { grammarFor } from '../../../src/card/registry'
import { codexGrammar, readCodex } from '../../../src/card/grammars/codex'
import { FAKE_TITLE, fakeAgent } from '../../support/agent'

const ROOT = join(import.meta.dir, '../../../fixtures/screens')
const ESC = /\u001b/
const BOX = /[─━│┃╭╮╰╯╌╹▀▄├└┌┐┘┤┬┴┼▐▛▜▝▘█\u2800-\u28ff]/
const VARIANTS = ['.txt', '.ansi', '.recent.txt']
export const CODEX_SCENARIOS = [
  'approval',
  'error',
  'interrupt',
  'patch',
  'plan',
  'resume',
  'working',
  'trust',
  'live',
  'digits',
  'exec-approvals',
  'patch-approvals',
  'permissions',
  'queue',
  'mcp',
  'menus',
  'card4',
].map((s) => `codex-${s}`)

interface Expected {
  agent: string
  screens: Record<string, { agent_status: AgentStatus; permission_mode: string | null; headline: string | null; blocked?: Blocked; _menu?: Blocked }>
}

for (const scenario of CODEX_SCENARIOS) {
  const expected: Expected = JSON.parse(readFileSync(join(ROOT, scenario, 'expected.json'), 'utf8'))
  describe(scenario, () => {
    test('every screen of expected.json has its three captures', () => {
      const labels = Object.keys(expected.screens)
      expect(labels.length).toBeGreaterThan(2)
      for (const label of labels) for (const v of VARIANTS) expect(existsSync(join(ROOT, scenario, label + v))).toBe(true)
    })
    for (const [label, want] of Object.entries(expected.screens)) {
      for (const variant of VARIANTS) {
        test(`${label}${variant}`, () => {
          const screen = readFileSync(join(ROOT, scenario, label + variant), 'utf8')
          const agent = fakeAgent('codex', want.agent_status)

          const reading = readCodex(screen, agent)
          expect(reading.parsed).toBe(true)
          expect(reading.headline).toBe(want.headline ?? '')
          expect(reading.blocked).toEqual(want.blocked)
          expect(reading.permission_mode ?? null).toBe(want.permission_mode)
          expect(reading.rule).toMatch(/^codex\./)

          const card = buildCard(agent, screen)
          expect(card.agent_kind).toBe('codex')
          expect(card.agent_status).toBe(want.agent_status)
          expect(card.parsed).toBe(true)
          expect(card.headline).toBe(want.headline ?? FAKE_TITLE)
          expect(card.permission_mode ?? null).toBe(want.permission_mode)
          expect(card.blocked).toEqual(onCard('codex', want.blocked))
          for (const text of [card.headline, card.detail, ...(card.transcript ?? [])]) {
            expect(text).not.toMatch(ESC)
            expect(text).not.toMatch(BOX)
          }
          expect((card.transcript ?? []).length).toBeLessThanOrEqual(12)
          expect(card.detail.length).toBeGreaterThan(0)
          // dialog() (POST /send's digit check) agrees with the card
          // (a menu the user opened is a dialog too, though not a question: expected.json's _menu)
          expect(codexGrammar.dialog!(screen)).toEqual(want.blocked ?? want._menu)
        })
      }
    }
  })
}

describe('registry', () => {
  test('codex has its own grammar with a Shift+Tab mode; a digit answers a dialog at once', () => {
    expect(grammarFor('codex')).toBe(codexGrammar)
    expect(grammarFor(' Codex ')).toBe(codexGrammar)
    expect(typeof codexGrammar.permissionMode).toBe('function')
    expect(codexGrammar.digitSelects).toBe(true)
  })
})
