// dialog(screen) and permissionMode(screen) on the other shapes Claude Code draws
// (docs/reference/claude-code.md §8.5–8.9), hand-built from the documented rows, plus the
// footer after each Shift+Tab step on a real corpus screen.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { claudeGrammar } from '../../../src/card/grammars/claude'
import { buildCard, explainCard } from '../../../src/card/build'
import { fakeAgent } from '../../support/agent'

const RULE = '─'.repeat(100)
const dialog = (rows: string[]) => claudeGrammar.dialog!(rows.join('\n'))
const mode = (s: string) => claudeGrammar.permissionMode!(s)

describe('dialogs', () => {
  test('Edit prompt with a wrapped option 2 and the 2.1.28x wording', () => {
    const d = dialog([
      '● Update(notes.txt)',
      '',
      RULE,
      ' Edit file',
      ' notes.txt',
      '╌'.repeat(100),
      ' 1 -seed',
      ' 1 +sprout',
      '╌'.repeat(100),
      ' Do you want to make this edit to notes.txt?',
      ' ❯ 1. Yes',
      '   2. Yes, and switch to accept edits (auto-approve file edits and common file commands) for this',
      '      session (shift+tab)',
      '   3. No',
      '',
      ' Esc to cancel · Tab to amend',
    ])
    expect(d).toEqual({
      question: 'Do you want to make this edit to notes.txt?',
      options: [
        { index: 1, label: 'Yes', selected: true },
        {
          index: 2,
          label: 'Yes, and switch to accept edits (auto-approve file edits and common file commands) for this session (shift+tab)',
          selected: false,
        },
        { index: 3, label: 'No', selected: false },
      ],
    })
  })

  test('multi-question AskUserQuestion with chips and a multi-select list, cursor on option 3', () => {
    const rows = [
      RULE,
      '←  ☒ Button  ☒ Grey cursor  ☐ Glyphs  ☐ Placement  ✔ Submit  →',
      '',
      'Which glyphs should the demo use?',
      '',
      '  1. [✔] Box drawing',
      '     Lines and corners',
      '  2. [ ] Braille',
      '❯ 3. [ ] Emoji',
      '  4. [ ] Type something',
      '     Next',
      RULE,
      '  5. Chat about this',
      '',
      'Enter to select · Tab/Arrow keys to navigate · Esc to cancel',
    ]
    expect(dialog(rows)).toEqual({
      question: 'Which glyphs should the demo use?',
      options: [
        { index: 1, label: 'Box drawing', selected: false, checked: true },
        { index: 2, label: 'Braille', selected: false, checked: false },
        { index: 3, label: 'Emoji', selected: true, checked: false },
        { index: 4, label: 'Type something', selected: false, checked: false, free_text: true },
        { index: 5, label: 'Chat about this', selected: false },
      ],
      multi_select: true,
    })
    const card = buildCard(fakeAgent('claude', 'blocked'), rows.join('\n'))
    expect(card.headline).toBe('Which glyphs should the demo use?')
    expect(card.detail).toContain('Grey cursor') // the chip row is the form's context
  })

  test('a │ bar in front of a tabbed question, and inside one that wraps (2.1.28x), is not part of it', () => {
    expect(
      dialog([
        RULE,
        '←  ☐ Scope  ☐ Tests  ✔ Submit  →',
        '',
        '│ Which parts of the parser should the refactor touch, given that the dialog reader is shared',
        '│ with opencode?',
        '',
        '❯ 1. Only claude.ts',
        '  2. claude.ts and dialog.ts',
        '  3. Type something.',
        '',
        'Enter to select · Tab/Arrow keys to navigate · Esc to cancel',
      ])?.question,
    ).toBe('Which parts of the parser should the refactor touch, given that the dialog reader is shared with opencode?')
  })

  test('review tab of a multi-question form', () => {
    expect(
      dialog([RULE, 'Review your answers', '', ' ● Which tea?', '   → Green', '', 'Ready to submit your answers?', '', '❯ 1. Submit answers', '  2. Cancel']),
    ).toEqual({
      question: 'Ready to submit your answers?',
      options: [
        { index: 1, label: 'Submit answers', selected: true },
        { index: 2, label: 'Cancel', selected: false },
      ],
    })
  })

  test('folder trust (2.1.280): unnumbered options, cursor on the first', () => {
    expect(
      dialog([
        RULE,
        ' Accessing workspace:',
        '',
        ' /home/me/proj',
        '',
        ' Quick safety check: Is this a project you created or one you trust?',
        '',
        ' ❯ No, exit',
        '   Yes, I trust this folder',
        '',
        ' Enter to confirm · Esc to cancel',
      ]),
    ).toEqual({
      question: 'Quick safety check: Is this a project you created or one you trust?',
      options: [
        { index: 0, label: 'No, exit', selected: true },
        { index: 0, label: 'Yes, I trust this folder', selected: false },
      ],
    })
  })

  test('usage-limit menu with the › cursor on option 2', () => {
    expect(
      dialog([
        RULE,
        ' What do you want to do?',
        '   1. Stop and wait for limit to reset',
        ' › 2. Wait here, then continue automatically at 7:30pm',
        '   3. Switch to usage credits',
      ]),
    ).toEqual({
      question: 'What do you want to do?',
      options: [
        { index: 1, label: 'Stop and wait for limit to reset', selected: false },
        { index: 2, label: 'Wait here, then continue automatically at 7:30pm', selected: true },
        { index: 3, label: 'Switch to usage credits', selected: false },
      ],
    })
  })

  test('a numbered list without cursor or hint is not a dialog; nor is one above the composer', () => {
    expect(dialog(['● Steps:', '  1. build', '  2. test'])).toBeUndefined()
    expect(dialog([RULE, ' Do you want to proceed?', ' ❯ 1. Yes', '   2. No', RULE, '❯ ', RULE, '  ? for shortcuts'])).toBeUndefined()
    // numbering that does not run 1..n
    expect(dialog([RULE, ' Pick one?', ' ❯ 2. Yes', '   3. No', ' Esc to cancel'])).toBeUndefined()
  })

  test('after a digit acted: the dialog is gone from the screen', () => {
    const fixtures = join(import.meta.dir, '../../../fixtures/screens/cc-bash-prompt')
    expect(claudeGrammar.dialog!(readFileSync(join(fixtures, '01-bash-prompt.txt'), 'utf8'))?.options.length).toBe(3)
    expect(claudeGrammar.dialog!(readFileSync(join(fixtures, '03-after-reject.txt'), 'utf8'))).toBeUndefined()
  })
})

describe('permission mode after each Shift+Tab', () => {
  const base = readFileSync(join(import.meta.dir, '../../../fixtures/screens/cc-bash-prompt/00-startup.txt'), 'utf8')
  const footer = '  ? for shortcuts · ← for agents'
  expect(base).toContain(footer)
  const withFooter = (row: string) => base.replace(footer, row)
  const cases: [string, string | undefined][] = [
    ['  ? for shortcuts · ← for agents', 'default'],
    ['  ctrl+t to hide tasks · ← for agents', 'default'],
    ['  ⏵⏵ accept edits on (shift+tab to cycle) · ← for agents', 'acceptEdits'],
    ['  ⏵⏵ auto-accept edits on (shift+tab to toggle)', 'acceptEdits'],
    ['  ⏸ plan mode on (shift+tab to cycle)', 'plan'],
    ['  ⏵⏵ auto mode on (shift+tab to cycle) · esc to interrupt', 'auto'],
    ['  ⏵⏵ bypass permissions on (shift+tab to cycle) · 1 shell', 'bypassPermissions'],
    ['  ▶▶ bypass permissions on (shift+tab to cycle)', 'bypassPermissions'],
    ["  ⏵⏵ don't ask on (shift+tab to cycle)", "don't ask"],
    // 2.1.2xx+ names the old default mode "manual mode"
    ['  ⏸ manual mode on · ? for shortcuts · ← for agents', 'default'],
    ['  ⏵⏵ Yolo Mode on (shift+tab to cycle)', 'yolo mode'],
  ]
  for (const [row, want] of cases) {
    test(JSON.stringify(row.trim()), () => {
      expect(mode(withFooter(row))).toBe(want)
      expect(mode(withFooter(row) + '\n                  tmux focus-events off · add it')).toBe(want)
    })
  }

  test('absent while a dialog replaces the footer, in the transcript view, and on an empty screen', () => {
    const fx = (p: string) => readFileSync(join(import.meta.dir, '../../../fixtures/screens', p), 'utf8')
    expect(mode(fx('cc-plan/01-plan-approval.txt'))).toBeUndefined()
    expect(mode(fx('cc-subagents/09-transcript-view.txt'))).toBeUndefined()
    expect(mode('')).toBeUndefined()
    // a composer cut off before its footer: unknown, not default
    expect(mode(base.slice(0, base.indexOf(footer)))).toBeUndefined()
  })
})

// issue #26: the layout, not the wording, where the screen shows it
describe('what only the layout or the colours show (cc332-askuser-more)', () => {
  const SCREENS = join(import.meta.dir, '../../../fixtures/screens/cc332-askuser-more')
  const read = (file: string) => readFileSync(join(SCREENS, file), 'utf8')
  const explain = (file: string) => explainCard(fakeAgent('claude', 'blocked'), read(file))

  test('an answer typed into the own-answer row: still the free-text row, by its place above the rule', () => {
    const e = explain('03-type-something-typed.txt')
    expect(e.card.blocked?.options[4]).toEqual({ index: 5, label: 'Node 20 LTS', selected: true, free_text: true })
    expect(e.decisions['blocked.options']?.why).toContain('option 5 takes typed text (the last row above the rule')
    // the untyped row is known by its words
    expect(explain('01-no-descriptions.txt').decisions['blocked.options']?.why).toContain('option 5 takes typed text (its wording)')
  })

  test('the shown tab: from the highlight when the screen has colours, else a guess the card names', () => {
    const ansi = explain('09-three-tabs-second.ansi')
    expect(ansi.card.blocked?.questions).toEqual({ titles: ['Licence', 'Maintainer', 'Badges'], current: 2 })
    expect(ansi.decisions['blocked.questions']?.rule).toBe('claude.dialog.tabs-highlight')
    const plain = explain('09-three-tabs-second.txt')
    expect(plain.card.blocked?.questions).toEqual({ titles: ['Licence', 'Maintainer', 'Badges'], current: 1 })
    expect(plain.decisions['blocked.questions']?.rule).toBe('claude.dialog.tabs-guess')
    expect(plain.decisions['blocked.questions']?.why).toContain('GUESS')
  })

  test('a preview form has no own-answer row: the last option above the rule stays a plain option', () => {
    const screen = readFileSync(join(SCREENS, '../cc332-askuser/09-preview.txt'), 'utf8')
    expect(claudeGrammar.dialog!(screen)?.options.some((o) => o.free_text)).toBe(false)
  })
})

describe('a text input among the options (cc332-rules, Tab to amend)', () => {
  const SCREENS = join(import.meta.dir, '../../../fixtures/screens/cc332-rules')
  const explain = (file: string) => explainCard(fakeAgent('claude', 'blocked'), readFileSync(join(SCREENS, file), 'utf8'))

  test('typed text in option 1: the inverse-video text cursor in its row makes it free_text', () => {
    const e = explain('05-bash-amend-typed.ansi')
    expect(e.card.blocked?.options[0]).toEqual({ index: 1, label: 'Yes, and tell me when done', selected: true, free_text: true })
    expect(e.decisions['blocked.options']?.why).toContain('option 1 takes typed text (a text cursor')
    // plain text cannot show it
    expect(explain('05-bash-amend-typed.txt').card.blocked?.options[0].free_text).toBeUndefined()
  })

  test('no text cursor, no input: the plain Bash prompt has no free_text option even with colours', () => {
    expect(explain('03-bash-prompt.ansi').card.blocked?.options.some((o) => o.free_text)).toBe(false)
  })
})

describe('a notice that waits for a key and offers no options (cc332-mode-prompts)', () => {
  const file = join(import.meta.dir, '../../../fixtures/screens/cc332-mode-prompts/04-auto-unavailable-200.txt')
  test("its title is the question, no options, the rule says so; never the turn's prose as a question", () => {
    const e = explainCard(fakeAgent('claude', 'blocked'), readFileSync(file, 'utf8'))
    expect(e.card.blocked?.question).toBe("Auto mode can't check actions in this session")
    expect(e.card.blocked?.options).toEqual([])
    expect(e.decisions['blocked.options']?.rule).toBe('claude.dialog.options-keys')
    expect(e.card.detail).toContain('Enter to stay in auto mode')
  })
})

describe('first-run screens (cc332-onboarding)', () => {
  const SCREENS = join(import.meta.dir, '../../../fixtures/screens/cc332-onboarding')
  const explain = (file: string) => explainCard(fakeAgent('claude', 'blocked'), readFileSync(join(SCREENS, file), 'utf8'))

  test('a menu with no hint row: options by the ❯ column (the ✔ mark is not in the label), the question a named guess', () => {
    const e = explain('00-theme-picker.txt')
    expect(e.card.blocked?.options[0]).toEqual({ index: 0, label: 'Auto (match terminal)', selected: true })
    expect(e.card.blocked?.options.length).toBe(7)
    expect(e.decisions['blocked.question']?.rule).toBe('claude.dialog.question-above-menu')
    expect(e.decisions['blocked.question']?.why).toContain('GUESS')
  })

  test('"Press Enter to continue" under the art: a notice with no options, its first row the question', () => {
    const e = explain('01-security-notes.txt')
    expect(e.card.blocked).toMatchObject({ question: 'Security notes:', options: [] })
    expect(e.decisions['blocked.options']?.rule).toBe('claude.dialog.options-keys')
  })
})
