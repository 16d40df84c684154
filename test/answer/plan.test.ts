// The fingerprint and the answer plans, on real screens (fixtures/screens-answer): which
// keys each dialog kind gets, and which requests are refused before any key.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { blockedOf } from '../../src/card/build'
import { grammarFor } from '../../src/card/registry'
import { planAnswer, type Choice, type LiveDialog, type Step } from '../../src/answer/plan'
import { fakeAgent } from '../support/agent'

const ROOT = join(import.meta.dir, '../../fixtures')

function live(kind: string, file: string): LiveDialog {
  const screen = readFileSync(join(ROOT, file), 'utf8')
  const r = grammarFor(kind).read(screen, fakeAgent(kind, 'blocked'))
  if (!r.blocked) throw new Error(`no dialog in ${file}`)
  return { blocked: blockedOf(kind, r.blocked, r.identity), drive: r.drive, identity: r.identity }
}
const A = (run: string, label: string, ext = 'txt') => `screens-answer/${run}/${label}.${ext}`

function keysOf(kind: string, file: string, choice: Choice): string[] | { error: number; body: string } {
  const d = live(kind, file)
  const plan = planAnswer(kind, d, grammarFor(kind).drives?.[d.drive!.kind], choice)
  if ('error' in plan) return plan
  return plan.steps.map((s: Step) => ('key' in s.send ? s.send.key : `text:${s.send.text}`))
}

describe('fingerprint', () => {
  test('moving the cursor and ticking boxes keep it; the next tab, another question or another command change it', () => {
    const first = live('claude', A('cc332-ask', '01-multi')).blocked.fingerprint
    for (const l of ['02-key1', '03-key3', '04-down', '06-down', '07-down-next']) expect(live('claude', A('cc332-ask', l)).blocked.fingerprint).toBe(first)
    expect(live('claude', A('cc332-ask', '08-next-enter')).blocked.fingerprint).not.toBe(first)
    expect(live('claude', A('cc332-plan', '02-key3')).blocked.fingerprint).toBe(live('claude', A('cc332-plan', '01-review')).blocked.fingerprint)
    expect(live('pi', A('pi-dlg', '02-confirm-down')).blocked.fingerprint).toBe(live('pi', A('pi-dlg', '01-confirm')).blocked.fingerprint)
    const oc = live('opencode', A('opencode-reject', '01-permission', 'ansi'))
    expect(live('opencode', A('opencode-reject', '03-right2', 'ansi')).blocked.fingerprint).toBe(oc.blocked.fingerprint)
    // same question, same buttons, another command: another dialog
    const other = live('opencode', 'screens/opencode/09-bash-permission.ansi')
    expect(other.blocked.question).toBe(oc.blocked.question)
    expect(other.blocked.options.map((o) => o.label)).toEqual(oc.blocked.options.map((o) => o.label))
    expect(other.blocked.fingerprint).not.toBe(oc.blocked.fingerprint)
    // the same screen always gives the same value, and the agent kind counts
    expect(live('claude', A('cc332-ask', '01-multi')).blocked.fingerprint).toBe(first)
    const d = live('claude', A('cc332-bash', '01-bash')).blocked
    expect(blockedOf('codex', d).fingerprint).not.toBe(d.fingerprint)
  })
})

describe('the keys each dialog gets', () => {
  test('Claude Code 2.1.332 multi-select: digits tick, Down to "Next", Enter', () => {
    expect(keysOf('claude', A('cc332-ask', '01-multi'), { choose: [1, 3] })).toEqual(['1', '3', 'down', 'down', 'down', 'down', 'enter'])
    // 1 and 3 ticked, cursor on 3: untick 1, then one Down past the last box from 3
    expect(keysOf('claude', A('cc332-ask', '05-down'), { choose: [3] })).toEqual(['1', 'down', 'down', 'enter'])
    // already on "Next": just Enter
    expect(keysOf('claude', A('cc332-ask', '07-down-next'), { choose: [1, 3] })).toEqual(['enter'])
    // "Chat about this" is no box: a single choice by its digit
    expect(keysOf('claude', A('cc332-ask', '01-multi'), { choose: [5] })).toEqual(['5'])
  })

  test('Claude Code numbered dialogs: the digit acts; a free-text row takes the cursor, the text, then Enter', () => {
    expect(keysOf('claude', A('cc332-bash', '01-bash'), { choose: [4] })).toEqual(['4'])
    expect(keysOf('claude', A('cc332-ask', '08-next-enter'), { choose: [2] })).toEqual(['2'])
    expect(keysOf('claude', A('cc332-plan', '01-review'), { choose: [3], text: 'Also add a test file' })).toEqual(['3', 'text:Also add a test file', 'enter'])
    expect(keysOf('claude', A('cc332-ask1', '01-single'), { choose: [3], text: 'MariaDB please' })).toEqual(['3', 'text:MariaDB please', 'enter'])
    expect(keysOf('claude', 'screens/cc-plan/01-plan-approval.txt', { choose: [3], text: 'smaller steps' })).toEqual(['3', 'text:smaller steps', 'enter'])
  })

  test('pi extension dialogs: arrows from the highlighted row, Enter; input: the text, Enter', () => {
    expect(keysOf('pi', A('pi-dlg', '01-confirm'), { choose: [2] })).toEqual(['down', 'enter'])
    expect(keysOf('pi', A('pi-dlg', '02-confirm-down'), { choose: [1] })).toEqual(['up', 'enter'])
    expect(keysOf('pi', A('pi-dlg', '04-select'), { choose: [3] })).toEqual(['down', 'down', 'enter'])
    expect(keysOf('pi', A('pi-dlg', '08-input'), { choose: [1], text: 'v1.2.3' })).toEqual(['text:v1.2.3', 'enter'])
  })

  test('opencode: ←/→ over the permission buttons, ↑/↓ in the question picker', () => {
    expect(keysOf('opencode', A('opencode-reject', '01-permission', 'ansi'), { choose: [3] })).toEqual(['right', 'right', 'enter'])
    expect(keysOf('opencode', A('opencode-reject', '02-right', 'ansi'), { choose: [1] })).toEqual(['left', 'enter'])
    expect(keysOf('opencode', 'screens/opencode/06-question-down.ansi', { choose: [1] })).toEqual(['up', 'enter'])
  })
})

describe('refused before any key', () => {
  const bash = A('cc332-bash', '01-bash')
  test('400: a position the dialog does not have, several for a single choice, text where none is asked, no text where it is', () => {
    expect(keysOf('claude', bash, { choose: [5] })).toEqual({ error: 400, body: 'no option at position 5: the dialog has 4' })
    expect(keysOf('claude', bash, { choose: [1, 2] })).toEqual({ error: 400, body: 'several positions for a single-choice dialog' })
    expect(keysOf('claude', bash, { choose: [1], text: 'hi' })).toEqual({ error: 400, body: 'text for an option without free_text' })
    expect(keysOf('claude', A('cc332-plan', '01-review'), { choose: [3] })).toEqual({ error: 400, body: 'option 3 asks for text: send it in "text"' })
    expect(keysOf('claude', A('cc332-ask', '01-multi'), { choose: [1, 1] })).toEqual({ error: 400, body: 'a position is named twice' })
    // a box and a non-box option together: not several boxes
    expect(keysOf('claude', A('cc332-ask', '01-multi'), { choose: [1, 5] })).toEqual({ error: 400, body: 'several positions for a single-choice dialog' })
  })

  test('422: a dialog the grammar cannot drive', () => {
    const d = live('claude', bash)
    expect(planAnswer('claude', d, undefined, { choose: [1] })).toEqual({ error: 422, body: 'cannot answer this dialog' })
    // typing into a multi-select box row, and opencode's own-answer row, are not driven
    expect(keysOf('claude', A('cc332-ask', '01-multi'), { choose: [4], text: 'x' })).toEqual({ error: 422, body: 'cannot answer this dialog' })
    expect(keysOf('opencode', 'screens/opencode/05-question.ansi', { choose: [3], text: 'x' })).toEqual({ error: 422, body: 'cannot answer this dialog' })
  })
})
