// The codex grammar on input the corpus does not show: garbage, cut screens, prose that
// looks like a tool step or a dialog, and each piece of the vocabulary on its own.
import { describe, expect, test } from 'bun:test'
import { buildCard } from '../../../src/card/build'
import { readCodex, codexMode } from '../../../src/card/grammars/codex'
import { fakeAgent } from '../../support/agent'

const agent = (status: 'idle' | 'working' | 'blocked' | 'done' = 'done') => fakeAgent('codex', status)
const FOOTER = ['', '› Ask Codex to do anything', '', '  GPT-5.5 default · /home/me/p · Title', '  ← for agents · ? for shortcuts']
const screen = (...rows: string[]) => [...rows, ...FOOTER].join('\n')

describe('hostile screens never throw and never claim a dialog', () => {
  const garbage = ['', '\u0000\u0001\u001b[31m', '›\n'.repeat(400), '1. Yes\n2. No\n', '• '.repeat(5000), '› 1. a\n› 2. b\n', 'x'.repeat(100_000)]
  for (const [i, s] of garbage.entries())
    test(`garbage ${i + 1}`, () => {
      const card = buildCard(agent('blocked'), s)
      expect(typeof card.headline).toBe('string')
      if (!card.parsed) expect(card.blocked).toBeUndefined()
    })

  test('a screen with no codex landmark is the fallback (parsed:false)', () => {
    const r = readCodex('just some shell output\n$ ls\nfile.txt', agent())
    expect(r.parsed).toBe(false)
    expect(r.rule).toBe('codex.layout.unrecognised')
  })
})

describe('turn reading', () => {
  test('a sentence opening with a tool verb is prose; the command cell is a step', () => {
    const r = readCodex(screen('› go', '', '• Running the tests now; they are slow.', '', '• Ran npm test', '  └ ok'), agent('working'))
    expect(r.headline).toBe('Running the tests now; they are slow.')
    expect(r.detail).toBe('Running the tests now; they are slow.\n\nRan npm test · ok')
  })

  test("a stale answer from the previous turn is not this turn's headline", () => {
    const r = readCodex(
      screen('› one', '', '• First answer.', '', '  Worked for 2s • 10:00', '', '› two', '', '• Working (1s • esc to interrupt)'),
      agent('working'),
    )
    expect(r.headline).toBe('')
    expect(r.rule).toBe('codex.status.working')
    expect(r.detail).toBe('Working')
  })

  test('a numbered list in the last answer is not a dialog', () => {
    const r = readCodex(screen('› plan it', '', '• Steps:', '  1. Do this.', '  2. Do that.', '', '  Worked for 1s • 10:00'), agent('blocked'))
    expect(r.blocked).toBeUndefined()
    expect(r.headline).toBe('2. Do that.')
  })

  test('an interrupted turn with nothing said: the detail says so', () => {
    const r = readCodex(screen('› go', '', '■ Conversation interrupted - use /feedback if something went wrong'), agent('idle'))
    expect(r.rule).toBe('codex.turn.interrupted')
    expect(r.detail).toBe('Conversation interrupted')
  })

  test('a draft in the composer is not conversation; the mode label alone decides plan', () => {
    const s = [
      '› earlier',
      '',
      '• Answer.',
      '',
      '› my draft',
      '  continues',
      '',
      '  GPT-5.5 medium · /p',
      '  ← for agents · ? for shortcuts   Plan mode (shift+tab to cycle)',
    ].join('\n')
    const r = readCodex(s, agent('idle'))
    expect(r.headline).toBe('Answer.')
    expect(r.permission_mode).toBe('plan')
    expect(codexMode(s)).toBe('plan')
    expect(codexMode(screen('› x'))).toBe('default')
    // a dialog hides the footer: no mode can be read
    expect(codexMode('  Implement this plan?\n\n› 1. Yes\n  2. No\n\n  enter select · esc back')).toBeUndefined()
  })
})

describe('dialogs', () => {
  test('a question whose progress row says 2 questions; descriptions are not labels, they are descriptions', () => {
    const s = [
      '› ask me',
      '',
      '  Question 2/2 (1 unanswered)',
      '  Which colour',
      '  should it be?',
      '',
      '  1. Red     warm',
      '› 2. Blue    cold',
      '',
      '  tab to add notes | enter to submit answer | esc to interrupt',
    ].join('\n')
    const r = readCodex(s, agent('blocked'))
    expect(r.rule).toBe('codex.dialog.question')
    expect(r.blocked).toEqual({
      question: 'Which colour should it be?',
      options: [
        { index: 1, label: 'Red', description: 'warm', selected: false },
        { index: 2, label: 'Blue', description: 'cold', selected: true },
      ],
    })
  })

  test('an unknown dialog title still gives its options (rule codex.dialog.numbered)', () => {
    const s = ['› x', '', '  Something new?', '', '› 1. Fine', '  2. Not fine', '', '  Press enter to confirm or esc to cancel'].join('\n')
    const r = readCodex(s, agent('blocked'))
    expect(r.rule).toBe('codex.dialog.numbered')
    expect(r.blocked!.question).toBe('Something new?')
    expect(r.blocked!.options.map((o) => o.label)).toEqual(['Fine', 'Not fine'])
  })

  test('an unknown title over context rows is the question; the context stays out of it', () => {
    const s = [
      '› x',
      '',
      '• Asking.',
      '',
      '  Would you like to frobnicate the widget?',
      '',
      '  Reason: it is stale',
      '',
      '  $ frob --all',
      '',
      '› 1. Yes, proceed (y)',
      '  2. No, and tell Codex what to do differently (esc)',
      '',
      '  Press enter to confirm or esc to cancel',
    ].join('\n')
    const r = readCodex(s, agent('blocked'))
    expect(r.rule).toBe('codex.dialog.numbered')
    expect(r.blocked!.question).toBe('Would you like to frobnicate the widget?')
    expect(r.detail).toBe('Reason: it is stale\n$ frob --all')
  })

  test('options right under the conversation: no question, never a conversation cell (codex.dialog.untitled)', () => {
    const s = ['› x', '', '• I need something.', '', '› 1. Yes', '  2. No', '', '  enter select · esc back'].join('\n')
    const r = readCodex(s, agent('blocked'))
    expect(r.rule).toBe('codex.dialog.untitled')
    expect(r.blocked!.question).toBe('')
    expect(r.blocked!.options.map((o) => o.label)).toEqual(['Yes', 'No'])
    const card = buildCard(agent('blocked'), s)
    expect(card.blocked?.question ?? '').not.toMatch(/need something/)
  })

  test("a menu the user opened is the conversation's card unless herdr calls the pane blocked", () => {
    const s = [
      '› x',
      '',
      '• All set.',
      '',
      '  Worked for 2s • 10:00',
      '',
      '  Update Model Permissions',
      '› 1. Ask for approval (current)  Read and edit',
      '  2. Full Access                 Anything',
      '  enter select · esc back',
    ].join('\n')
    const idle = readCodex(s, agent('idle'))
    expect(idle.headline).toBe('All set.')
    expect(idle.blocked).toBeUndefined()
    const blocked = readCodex(s, agent('blocked'))
    expect(blocked.rule).toBe('codex.dialog.menu')
    expect(blocked.blocked!.question).toBe('Update Model Permissions')
    expect(blocked.blocked!.options.map((o) => o.label)).toEqual(['Ask for approval (current)', 'Full Access'])
  })

  test('a popup centred over the conversation is read from its own column', () => {
    const s = screen(
      '• A long answer',
      '                     Frobnicate everything?',
      '  Worked for 5s • 1  This cannot be undone.',
      '',
      '                   › 1. Yes      Do it',
      '                     2. Cancel   Go back',
      '',
      '                     enter select · esc back',
    )
    const r = readCodex(s, agent('blocked'))
    expect(r.rule).toBe('codex.dialog.numbered')
    expect(r.blocked).toEqual({
      question: 'Frobnicate everything? This cannot be undone.',
      options: [
        { index: 1, label: 'Yes', description: 'Do it', selected: true },
        { index: 2, label: 'Cancel', description: 'Go back', selected: false },
      ],
    })
  })

  test('unseen layouts of a known dialog: cursor indented with the options, a title wrapped at a narrow width', () => {
    const indented = [
      '› x',
      '',
      '  Would you like to run the following command?',
      '',
      '  $ ls',
      '',
      '    1. Yes, proceed (y)',
      '  › 2. No, and tell Codex what to do differently (esc)',
      '',
      '  Press enter to confirm or esc to cancel',
    ].join('\n')
    const r = readCodex(indented, agent('blocked'))
    expect(r.rule).toBe('codex.dialog.command')
    expect(r.blocked!.options.map((o) => [o.index, o.selected])).toEqual([
      [1, false],
      [2, true],
    ])
    // 40 columns: the title wraps onto two rows; joined, it is still the known title
    const wrapped = [
      '› x',
      '',
      '  Would you like to run the following',
      '  command?',
      '',
      '  $ ls',
      '',
      '› 1. Yes, proceed (y)',
      '  2. No, and tell Codex what to do',
      '     differently (esc)',
      '',
      '  Press enter to confirm or esc',
      '  to cancel',
    ].join('\n')
    const w = readCodex(wrapped, agent('blocked'))
    expect(w.rule).toBe('codex.dialog.command')
    expect(w.blocked!.question).toBe('Would you like to run the following command?')
    expect(w.blocked!.options.map((o) => o.label)).toEqual(['Yes, proceed (y)', 'No, and tell Codex what to do differently (esc)'])
  })

  test('a tool cell\'s "+ Show details" above unknown options is never the question', () => {
    const s = ['› x', '', '• Calling tracker.frob', '    + Show details', '', '› 1. Go', '  2. Stop', '', '  enter to submit | esc to cancel'].join('\n')
    const r = readCodex(s, agent('blocked'))
    expect(r.rule).toBe('codex.dialog.untitled')
    expect(r.blocked!.question).toBe('')
  })

  test('the options of an answered dialog, followed by the composer, are not live', () => {
    const r = readCodex(
      screen('  Would you like to run the following command?', '', '› 1. Yes, proceed (y)', '  2. No (esc)', '', '• Ran ls', '  └ a'),
      agent('done'),
    )
    expect(r.blocked).toBeUndefined()
  })
})
