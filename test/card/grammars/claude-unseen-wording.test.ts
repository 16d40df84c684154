// Issue #26: the grammar reads a dialog's LAYOUT, not its words. Every captured 2.1.332
// dialog with numbered options, its letters rotated (rot13: every word is new, the layout,
// the digits, the ❯ and the "?" are the same), must still give the same question and the same
// options, rotated: an unseen member of the family parses. Descriptions too (issue 40): the
// dim " · " text after a label is known by its place, not its words.
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildCard } from '../../../src/card/build'
import { fakeAgent } from '../../support/agent'

const ROOT = join(import.meta.dir, '../../../fixtures/screens')
const rot13 = (s: string) => s.replace(/[a-zA-Z]/g, (c) => String.fromCharCode(((c.toLowerCase().charCodeAt(0) - 97 + 13) % 26) + (c <= 'Z' ? 65 : 97)))

interface Want {
  agent_status: string
  blocked?: { question: string; options: { index: number; label: string; description?: string; selected: boolean }[] }
}

const cases: [string, Want['blocked']][] = []
for (const dir of readdirSync(ROOT).filter((d) => d.startsWith('cc332-') && existsSync(join(ROOT, d, 'expected.json')))) {
  const expected = JSON.parse(readFileSync(join(ROOT, dir, 'expected.json'), 'utf8'))
  for (const [label, want] of Object.entries<Want>(expected.screens)) {
    if (want.agent_status !== 'blocked' || !want.blocked?.options.some((o) => o.index > 0)) continue
    // the question must be a "?" line: a title or a sentence is found by its place, checked elsewhere
    if (!want.blocked.question.endsWith('?')) continue
    // the preview form's unnumbered "Chat about this" is known by its words (vocabulary.unnumbered)
    if (want.blocked.options.some((o) => o.index === 0)) continue
    cases.push([`${dir}/${label}`, want.blocked])
  }
}

describe('captured numbered dialogs with every word replaced', () => {
  test('there are enough of them to mean something', () => {
    expect(cases.length).toBeGreaterThan(50)
    expect(cases.filter(([, b]) => b!.options.some((o) => o.description)).length).toBeGreaterThan(15)
  })
  for (const [name, want] of cases) {
    test(name, () => {
      const screen = rot13(readFileSync(join(ROOT, `${name}.txt`), 'utf8'))
      const card = buildCard(fakeAgent('claude', 'blocked'), screen)
      expect(card.blocked?.question).toBe(rot13(want!.question))
      expect(card.blocked?.options.map(({ index, label, description, selected }) => ({ index, label, description, selected }))).toEqual(
        want!.options.map((o) => ({ index: o.index, label: rot13(o.label), description: o.description && rot13(o.description), selected: o.selected })),
      )
    })
  }
})

// Cursor menus (folder trust, the bypass warning, an API key, a project's MCP server, /add-dir,
// the No / Yes menu of plan and auto mode): rotated, their hint row's words are gone too, so
// the menu is found by its ❯ column alone and its question by its "?".
const menus: [string, NonNullable<Want['blocked']>][] = []
for (const dir of readdirSync(ROOT).filter((d) => d.startsWith('cc332-') && existsSync(join(ROOT, d, 'expected.json')))) {
  const expected = JSON.parse(readFileSync(join(ROOT, dir, 'expected.json'), 'utf8'))
  for (const [label, want] of Object.entries<Want>(expected.screens)) {
    const b = want.blocked
    if (want.agent_status !== 'blocked' || !b || b.options.length === 0 || b.options.some((o) => o.index > 0)) continue
    // a question found by its "?", not a title (those are found by their place in the section)
    if (!b.question.endsWith('?')) continue
    menus.push([`${dir}/${label}`, b])
  }
}

describe('captured cursor menus with every word replaced', () => {
  test('there are some', () => expect(menus.length).toBeGreaterThan(8))
  for (const [name, want] of menus) {
    test(name, () => {
      const screen = rot13(readFileSync(join(ROOT, `${name}.txt`), 'utf8'))
      const card = buildCard(fakeAgent('claude', 'blocked'), screen)
      expect(card.blocked?.question).toBe(rot13(want.question))
      expect(card.blocked?.options.map(({ index, label, selected }) => ({ index, label, selected }))).toEqual(
        want.options.map((o) => ({ index: o.index, label: rot13(o.label), selected: o.selected })),
      )
    })
  }
})
