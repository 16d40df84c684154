// Issue 40: an option's description is not its label. Claude Code 2.1.332 draws it dim after
// " · " on permission rows and in a column aligned across the rows of a picker (/model); the
// label is the choice alone, the description goes to options[].description, and a picker's
// explanatory line under its one-row title goes to detail, not into the question. Read off
// real captures (fixtures/screens/cc332-card4, cc332-model-switch, cc332-permissions).
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildCard, explainCard } from '../../../src/card/build'
import { claudeGrammar } from '../../../src/card/grammars/claude'
import { fakeAgent } from '../../support/agent'

const SCREENS = join(import.meta.dir, '../../../fixtures/screens')
const screen = (name: string) => readFileSync(join(SCREENS, name), 'utf8')

const MODELS = [
  { label: 'Default (recommended)', description: 'Use the default model (currently Opus 5.5) · $4/$20 per Mtok' },
  { label: 'Opus', description: 'Opus 5.5 · Best for everyday, complex tasks · $4/$20 per Mtok' },
  { label: 'Fable', description: 'Fable 5.2 · Most capable for your hardest and longest-running tasks · $8/$40 per Mtok' },
  { label: 'Sonnet', description: 'Sonnet 5.5 · Efficient for routine tasks · $2/$10 per Mtok' },
  // its description wraps onto a row of its own at the description column
  { label: 'Haiku', description: 'Haiku 5.5 · Fastest for quick answers · $0.10/$0.50 per Mtok ($0.50/$2.50 for prompts over 100k)' },
]

describe('the /model picker: a column of descriptions', () => {
  for (const name of ['cc332-card4/10-model-picker', 'cc332-model-switch/01-model-picker-sonnet', 'cc332-slash-commands/01-model-picker']) {
    for (const variant of ['.txt', '.ansi']) {
      test(`${name}${variant}: labels are the choices, the column their descriptions; the current mark ✔ is neither`, () => {
        const d = claudeGrammar.dialog!(screen(name + variant))
        expect(d?.options.map(({ label, description }) => ({ label, description }))).toEqual(MODELS)
      })
    }
  }

  test('herdr says blocked: the title is the question, the line under it the detail, and explain names both rules', () => {
    const e = explainCard(fakeAgent('claude', 'blocked'), screen('cc332-card4/10-model-picker.ansi'))
    expect(e.card.blocked?.question).toBe('Select model')
    expect(e.card.headline).toBe('Select model')
    expect(e.card.detail).toBe('Your pick is the default for new sessions. For other models, use --model.')
    expect(e.decisions.detail?.rule).toBe('claude.dialog.title-explanation')
    expect(e.decisions['blocked.options.description']?.rule).toBe('claude.dialog.option-description-column')
    expect(e.rule).toContain('claude.dialog.option-description-column')
  })

  test('the fingerprint is over the labels: a description that changes (a new price) keeps the dialog', () => {
    const s = screen('cc332-card4/10-model-picker.txt')
    const before = buildCard(fakeAgent('claude', 'blocked'), s)
    const after = buildCard(fakeAgent('claude', 'blocked'), s.replace('$2/$10 per Mtok', '$3/$15 per Mtok'))
    expect(after.blocked?.options[3].description).toBe('Sonnet 5.5 · Efficient for routine tasks · $3/$15 per Mtok')
    expect(after.blocked?.fingerprint).toBe(before.blocked!.fingerprint)
  })

  test('an unseen picker of the family (other words, another column): the layout alone splits it', () => {
    const s = screen('cc332-card4/10-model-picker.txt')
      .replace(/^(\s*(?:❯ )?\d\. )(\S+(?: \S+)*?)( {2,})(?=\S)/gm, (_, head, label, gap) => `${head}${label.toUpperCase()}${gap}    `)
      .replace('over 100k)', '    over 100k)')
    const d = claudeGrammar.dialog!(s)
    expect(d?.options.map((o) => o.label)).toEqual(MODELS.map((m) => m.label.toUpperCase()))
    expect(d?.options.map((o) => o.description)).toEqual(MODELS.map((m) => m.description))
  })

  test('rows whose gaps do not line up are no column: the label stays whole', () => {
    const s = screen('cc332-card4/10-model-picker.txt').replace(
      '2. Opus                     Opus 5.5 · Best for everyday, complex tasks · $4/$20 per Mtok',
      '2. Opus  Best for everyday, complex tasks',
    )
    const d = claudeGrammar.dialog!(s)
    expect(d?.options[1]).toEqual({ index: 2, label: 'Opus  Best for everyday, complex tasks', selected: false })
  })
})

describe('a permission row: dim text after " · "', () => {
  const CAPTURED = 'cc332-card4/08-bash-prompt-descriptions.ansi'

  test('the label is the choice, the dim rest its description; explain names the rule', () => {
    const e = explainCard(fakeAgent('claude', 'blocked'), screen(CAPTURED))
    expect(e.card.blocked?.options[2]).toEqual({
      index: 3,
      label: 'Yes, and switch to auto mode',
      description: 'auto mode handles these prompts for you',
      selected: false,
    })
    expect(e.decisions['blocked.options.description']?.rule).toBe('claude.dialog.option-description-separator')
  })

  test('with the cursor on it (drawn in the cursor colour) the description is still told apart', () => {
    const card = buildCard(fakeAgent('claude', 'blocked'), screen('cc332-card4/09-bash-prompt-descriptions-down.ansi'))
    expect(card.blocked?.options[2]).toMatchObject({
      label: 'Yes, and switch to auto mode',
      description: 'auto mode handles these prompts for you',
      selected: true,
    })
  })

  test('a " · " drawn in the label\'s own colour is part of the label', () => {
    // the same captured row with the dim colour (38;5;246) after the label taken away
    const s = screen(CAPTURED).replace(/(Yes, and switch to auto mode)\u001b\[38;5;246m( · auto mode)/, '$1$2')
    const card = buildCard(fakeAgent('claude', 'blocked'), s)
    expect(card.blocked?.options[2].label).toBe('Yes, and switch to auto mode · auto mode handles these prompts for you')
    expect(card.blocked?.options[2].description).toBeUndefined()
  })

  test('a narrow pane wraps the description onto the next row: still one description', () => {
    const card = buildCard(fakeAgent('claude', 'blocked'), screen('cc332-narrow/01-bash-prompt-64.ansi'))
    expect(card.blocked?.options[2]).toMatchObject({ label: 'Yes, and switch to auto mode', description: 'auto mode handles these prompts for you' })
  })

  test('the fingerprint is over the labels: the description does not change it', () => {
    const s = screen(CAPTURED)
    const a = buildCard(fakeAgent('claude', 'blocked'), s)
    const b = buildCard(fakeAgent('claude', 'blocked'), s.replace('· auto mode handles these prompts', '· auto mode answers these prompts'))
    expect(b.blocked?.options[2].description).toBe('auto mode answers these prompts for you')
    expect(b.blocked?.fingerprint).toBe(a.blocked!.fingerprint)
  })
})
