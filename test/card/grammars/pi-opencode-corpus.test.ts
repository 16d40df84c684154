// Every real pi and opencode corpus screen (fixtures/screens, real captures) —
// plain (.txt), coloured (.ansi) and scrollback (.recent.txt) — through the kind's grammar
// and through buildCard via the registry, against the scenario's expected.json.
//
// Deliberate differences from expected.json (the contract and the medium decide):
// - opencode's permission buttons are unnumbered, so index is 0 ("0 if unnumbered"):
//   typing "1" does not pick them, and POST /send must not treat them as numbered.
//   expected.json numbers them by position (1..3).
// - opencode shows the highlighted option by colour only. From plain text (.txt,
//   .recent.txt) `selected` is the first option — the one opencode highlights when a
//   dialog opens — so after the user moved the highlight (06, 10, 12) plain text says
//   "first" and only the .ansi capture says which one it really is.
import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { AgentStatus } from '../../../src/herdr/types'

import { buildCard } from '../../../src/card/build'
import { cleanScreen } from '../../../src/card/clean'
import { grammarFor } from '../../../src/card/registry'
import { opencodeGrammar, readOpencode } from '../../../src/card/grammars/opencode'
import { piGrammar, readPi } from '../../../src/card/grammars/pi'
import { FAKE_TITLE, fakeAgent } from '../../support/agent'
import { onCard } from '../../support/blocked'
import type { DialogReading } from '../../../src/card/card'

const ROOT = join(import.meta.dir, '../../../fixtures/screens')
const ESC = /\u001b/
const BOX = /[─━│┃╭╮╰╯╌╹▀▄├└┌┐┘┤┬┴┼▐▛▜▝▘█\u2800-\u28ff]/

interface Expected {
  agent: string
  screens: Record<string, { agent_status: AgentStatus; permission_mode: null; headline: string | null; blocked?: DialogReading }>
}

const PERMISSION = /^(?:Permission required|Always allow)$/

/** What the card must say, given expected.json and the capture's medium. */
function wantBlocked(want: DialogReading | undefined, variant: string, agent = 'opencode'): DialogReading | undefined {
  if (!want) return undefined
  const permission = PERMISSION.test(want.question)
  // pi marks the selected option with "→", which plain text keeps
  const plain = variant !== '.ansi' && agent === 'opencode'
  return {
    question: want.question,
    options: want.options.map((o, k) => ({
      index: permission ? 0 : o.index,
      label: o.label,
      selected: plain ? k === 0 : o.selected,
      ...(o.free_text ? { free_text: o.free_text } : {}),
    })),
  }
}

const VARIANTS = ['.txt', '.ansi', '.recent.txt']

for (const scenario of [
  'pi-basic',
  'pi-new-session',
  'pi-notices',
  'pi-retries',
  'pi-compact',
  'pi-retry-abort',
  // pi 1.6.0 (@earendil-works/pi-coding-agent): the loader in the editor's top rule, the bug-report hint
  'pi160-basic',
  'pi160-notices',
  'pi160-trust',
  'opencode',
  'opencode-permissions',
  'opencode-more',
  'opencode-subagent',
]) {
  const expected: Expected = JSON.parse(readFileSync(join(ROOT, scenario, 'expected.json'), 'utf8'))
  const read = expected.agent === 'pi' ? readPi : readOpencode
  describe(scenario, () => {
    test('every screen of expected.json has its three captures', () => {
      const labels = Object.keys(expected.screens)
      expect(labels.length).toBeGreaterThan(3)
      for (const label of labels) for (const v of VARIANTS) expect(existsSync(join(ROOT, scenario, label + v))).toBe(true)
    })
    for (const [label, want] of Object.entries(expected.screens)) {
      for (const variant of VARIANTS) {
        test(`${label}${variant}`, () => {
          const screen = readFileSync(join(ROOT, scenario, label + variant), 'utf8')
          const agent = fakeAgent(expected.agent, want.agent_status)

          // the grammar itself
          const reading = read(screen, agent)
          expect(reading.parsed).toBe(true)
          expect(reading.headline).toBe(want.headline ?? '')
          expect(reading.blocked).toEqual(wantBlocked(want.blocked, variant, expected.agent))
          expect(reading.permission_mode).toBeUndefined()
          expect(typeof reading.rule).toBe('string')

          // the card, through the registry
          const card = buildCard(agent, screen)
          expect(card.agent_kind).toBe(expected.agent)
          expect(card.agent_status).toBe(want.agent_status)
          expect(card.parsed).toBe(true)
          expect(card.headline).toBe(want.headline ?? FAKE_TITLE)
          expect(card.permission_mode).toBeUndefined()
          expect(card.blocked).toEqual(onCard(expected.agent, wantBlocked(want.blocked, variant, expected.agent)))
          for (const text of [card.headline, card.detail, ...(card.transcript ?? [])]) {
            expect(text).not.toMatch(ESC)
            expect(text).not.toMatch(BOX)
          }
          expect((card.transcript ?? []).length).toBeLessThanOrEqual(12)
          expect(card.detail.length).toBeGreaterThan(0)

          // dialog() (used by POST /send) agrees with the card, plain or coloured
          if (expected.agent === 'opencode') {
            expect(opencodeGrammar.dialog!(screen)).toEqual(wantBlocked(want.blocked, variant))
            expect(opencodeGrammar.dialog!(cleanScreen(screen))).toEqual(wantBlocked(want.blocked, '.txt'))
          }
        })
      }
    }
  })
}

describe('registry', () => {
  test('pi and opencode have their own grammars, without permission modes', () => {
    expect(grammarFor('pi')).toBe(piGrammar)
    expect(grammarFor(' PI ')).toBe(piGrammar)
    expect(grammarFor('opencode')).toBe(opencodeGrammar)
    expect(grammarFor('OpenCode')).toBe(opencodeGrammar)
    // no Shift+Tab modes: POST /agent-mode/cycle answers 422 for them
    expect(piGrammar.permissionMode).toBeUndefined()
    expect(opencodeGrammar.permissionMode).toBeUndefined()
    // pi has no approval UI of its own
    expect(piGrammar.dialog).toBeUndefined()
  })
})

describe('what the cards say beyond the headline', () => {
  const screen = (scenario: string, file: string) => readFileSync(join(ROOT, scenario, file), 'utf8')

  test('opencode permission: the tool and command are the detail; buttons without key hints in the transcript', () => {
    const card = buildCard(fakeAgent('opencode', 'blocked'), screen('opencode', '09-bash-permission.txt'))
    expect(card.detail).toBe('Shell command\n$ touch /home/me/oc/proj/made.txt && echo made')
    expect(card.transcript!.slice(-2)).toEqual(['$ touch /home/me/oc/proj/made.txt && echo made', 'Allow once  Allow always  Reject'])
    const edit = buildCard(fakeAgent('opencode', 'blocked'), screen('opencode', '11-edit-permission.ansi'))
    expect(edit.detail).toBe('→ Edit hello.txt\n1 - hello opencode\n1 + hey there')
  })

  test('opencode question: option descriptions are not part of the labels', () => {
    const d = opencodeGrammar.dialog!(screen('opencode', '05-question.txt'))!
    expect(d.options.map((o) => o.label)).toEqual(['Formal', 'Casual', 'Type your own answer'])
  })

  test('working with a tool after the prose: the step joins the detail', () => {
    const oc = buildCard(fakeAgent('opencode', 'working'), screen('opencode', '04-bash-running.txt'))
    expect(oc.detail).toBe('Running the slow check.\n\nsleep 8 && echo slow-ok')
    const pi = buildCard(fakeAgent('pi', 'working'), screen('pi-basic', '03-bash-running.txt'))
    expect(pi.detail).toBe('One slow command to finish.\n\n$ sleep 8 && echo slow-done · Elapsed 3.0s')
  })

  test('pi: the thinking and the text of one message are one block; the prompt is not prose', () => {
    const card = buildCard(fakeAgent('pi', 'done'), screen('pi-basic', '04-done.recent.txt'))
    expect(card.headline).toBe('All done: the environment works, the failing cat was reported, and notes.md is now final.')
    const working = buildCard(fakeAgent('pi', 'working'), screen('pi-basic', '01-working.txt'))
    expect(working.headline).toBe(FAKE_TITLE) // "Give me a quick tour" is the user's, not the agent's
    expect(working.transcript).toEqual(['Give me a quick tour'])
  })

  test('pi: the draft in the editor and the autocomplete row are not conversation', () => {
    const card = buildCard(fakeAgent('pi', 'idle'), screen('pi-new-session', '02-typing-new.txt'))
    for (const t of [card.detail, ...card.transcript!]) {
      expect(t).not.toContain('/new')
      expect(t).not.toContain('Start a new session')
      expect(t).not.toContain('%/200k')
    }
  })

  test('opencode exited: no headline of its own, the session summary as detail', () => {
    const card = buildCard(fakeAgent('opencode', 'idle'), screen('opencode', '15-exit.txt'))
    expect(card.headline).toBe(FAKE_TITLE)
    expect(card.detail).toBe('Session: Opencode permissions\nContinue: opencode -s ses_dc9c6f3f6ffeaI7KYi9o9i7LPb')
  })

  test('startup screens: no conversation, no transcript (logo, prompt box, tips are chrome)', () => {
    for (const [kind, scenario, file] of [
      ['opencode', 'opencode', '00-startup.txt'],
      ['opencode', 'opencode', '08-second-startup.ansi'],
      ['pi', 'pi-basic', '00-startup.txt'],
    ]) {
      const card = buildCard(fakeAgent(kind, 'idle'), screen(scenario, file))
      expect(card.headline).toBe(FAKE_TITLE)
      expect(card.transcript).toBeUndefined()
    }
  })
})
