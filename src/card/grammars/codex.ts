// Codex CLI screen grammar: screen text → card fields. Pure.
// Layout (Codex CLI 0.171.0, corpus codex-*): an inline TUI. The startup header
// (">_ OpenAI Codex (vX)" + cwd), then the conversation as cells at column 0 — "› prompt"
// for the user, "• text" for everything else (prose, tool steps "Ran …", notices) with
// their rows indented two columns — then, while a turn runs, a status row
// ("• Working (2s • esc to interrupt)"), the composer ("› Ask Codex to do anything") and
// the footer ("GPT-5.5 default · <cwd> · <title>", key hints, "Plan mode (shift+tab to
// cycle)"). A dialog (run a command, apply edits, a request_user_input question,
// "Implement this plan?", the folder trust prompt) replaces composer and footer; its
// options are numbered, "›" marks the selected one. A finished turn ends with the
// separator "Worked for 3s • 16:00", a stopped one with "■ Conversation interrupted …",
// a failed one with "■ <error>". The wording lives in codex-vocabulary.ts.
import type { AgentInfo } from '../../herdr/types'
import { TRANSCRIPT_LINES, type DialogReading as Blocked, type Decision, type ScreenGrammar, type ScreenReading } from '../card'
import { grammarRules } from '../rules'
import CODEX_RULES from './codex-rules.json'
import { screenLines } from '../clean'
import { readDialog, type DialogRead } from '../dialog'
import { anyMatch, BlockCut, indentOf, isBoxArt, isRule, paneWidth } from '../lines'
import { type BlockKinds, capDetail, readTurn, turnByKind, unwrapProse } from '../turn'
import { codexVocabulary as V, type CodexVocabulary } from './codex-vocabulary'
import { unrecognised } from './fallback'

// the composer grows with its draft; footer rows under it are few
const MAX_COMPOSER_ROWS = 12
const MAX_FOOTER_ROWS = 4
// how far above the options a dialog's title may be (reason, command, description rows)
const MAX_DIALOG_ROWS = 30
// options this far in are a popup drawn over the conversation, not a dialog under it
const POPUP_INDENT = 8

type BlockKind = 'banner' | 'prompt' | 'prose' | 'tool' | 'info' | 'status' | 'done' | 'interrupted' | 'error' | 'other'

export interface CodexBlock {
  kind: BlockKind
  /** rows as on screen; a cell's bullet is replaced by spaces so every row shares the indent */
  rows: string[]
}

export interface CodexDialog {
  blocked: Blocked
  /** the vocabulary rule that named it */
  rule: string
  /** a menu the user opened, or a dialog whose title is not known: only a blocked pane shows it */
  tentative?: boolean
  /** rows between the title and the options (command, reason, destination) */
  context: string[]
  /** first screen row of the dialog (its title, or the question's progress row) */
  top: number
}

export interface CodexLayout {
  lines: string[]
  width: number
  /** the composer's row (-1 when none is on screen) */
  composer: number
  /** the conversation is lines[0, convEnd) */
  convEnd: number
  dialog?: CodexDialog
  /** codex quit and printed how to resume the session */
  exited: boolean
  /** `codex resume`'s session picker fills the screen */
  picker: boolean
  /** the footer says the Plan collaboration mode is on */
  planMode: boolean
}

/** The composer: the last "›" row with only its draft, blanks and footer rows under it. */
function findComposer(lines: readonly string[], v: CodexVocabulary): { row: number; footer: string[] } {
  let i = lines.length - 1
  const footer: string[] = []
  while (i >= 0 && (!lines[i].trim() || anyMatch(v.footer, lines[i]))) {
    if (lines[i].trim()) footer.push(lines[i])
    if (footer.length > MAX_FOOTER_ROWS) return { row: -1, footer: [] }
    i--
  }
  for (let k = i; k >= 0 && k > i - MAX_COMPOSER_ROWS; k--) {
    const l = lines[k]
    // options or a dialog's hints under it: the "›" row above is an echoed prompt, not the composer
    if (v.dialog.option.test(l) || anyMatch(v.dialog.hint, l)) break
    if (v.prompt.test(l)) return { row: k, footer }
    if (l.trim() && indentOf(l) === 0) break // a draft's continuation rows are indented
  }
  return { row: -1, footer: [] }
}

/** The dialog's question: a known title above the options, else request_user_input's question. */
function dialogOf(lines: readonly string[], read: DialogRead, v: CodexVocabulary): CodexDialog {
  const firstOption = lines.findIndex((l, i) => i >= read.questionStart && v.dialog.option.test(l))
  const optionRow = firstOption >= 0 ? firstOption : read.questionStart
  // a description the column did not tell (one option has one, "say_hello  Matches …"): after the gap
  const options = read.blocked.options.map((o) => {
    const gap = o.description === undefined ? v.descriptionGap.exec(o.label) : null
    if (!gap) return o
    const { index, label, selected, ...rest } = o
    return { index, label: label.slice(0, gap.index).trim(), description: gap[0].trim(), selected, ...rest }
  })
  const floor = Math.max(0, optionRow - MAX_DIALOG_ROWS)
  // a popup centred over the conversation ("Enable full access?" at column 26) is read from
  // its own left column: the conversation shows through on the left of its rows
  const left = indentOf(lines[optionRow])
  const popup = left >= POPUP_INDENT
  const rowAt = (i: number) => (popup ? lines[i].slice(left) : lines[i])
  const rowsBetween = (from: number, to: number) => {
    const out: string[] = []
    for (let i = from; i < to; i++) {
      const row = rowAt(i)
      const t = row.trim()
      if (t && !isRule(row) && !isBoxArt(row)) out.push(t)
    }
    return out
  }
  const known = (i: number): CodexDialog | undefined => {
    const t = rowAt(i).trim()
    for (const kind of v.dialogs) {
      const m = kind.title.exec(t)
      if (!m) continue
      const question = (m[1] ?? m[0]).trim()
      const rest = t.slice(m[0].length).trim()
      // the title's own paragraph (the trust prompt explains itself under the question)
      const context = rowsBetween(i + 1, optionRow)
      return { blocked: { question, options }, rule: kind.rule, context: rest ? [rest, ...context] : context, top: i, tentative: kind.userMenu }
    }
    return undefined
  }
  const conversation = (row: string) => v.cell.test(row) || v.prompt.test(row) || v.doneMarker.test(row) || anyMatch(v.footer, row) || anyMatch(v.chrome, row)
  // codex draws the title on the dialog's first row, however tall the command under it: a
  // known title there is the question, whatever the command holds (a heredoc's "## Added")
  if (!popup) {
    let first = -1
    for (let i = optionRow - 1; i >= 0 && !conversation(lines[i]); i--) if (lines[i].trim()) first = i
    const titled = first >= 0 ? known(first) : undefined
    if (titled) return titled
  }
  // the rows above the options up to the conversation: the nearest paragraph is an unknown
  // dialog's title (codex draws a title, a blank row, then context rows or the options)
  let paragraph: number[] = []
  let seenBlank = false
  for (let i = optionRow - 1; i >= floor; i--) {
    const row = rowAt(i)
    const t = row.trim()
    if (!t) {
      if (paragraph.length) {
        if (popup) break // the popup's top
        seenBlank = true
      }
      continue
    }
    // the conversation above the dialog (a cell, a prompt, a tool cell's "+ Show details")
    if (!popup && conversation(row)) break
    if (seenBlank) {
      paragraph = [i]
      seenBlank = false
    } else paragraph.unshift(i)
    const titled = known(i)
    if (titled) return titled
    if (v.fieldProgress.test(lines[i])) {
      // an MCP elicitation: the message under "Field N/M", then the field's name
      const rows = rowsBetween(i + 1, optionRow)
      if (rows.length) return { blocked: { question: rows[0], options }, rule: 'codex.dialog.elicitation', context: rows.slice(1), top: i }
    }
    if (v.questionProgress.test(lines[i])) {
      // request_user_input: "Question 1/2 (1 unanswered)", then the question's paragraph
      const question = rowsBetween(i + 1, optionRow).join(' ')
      return { blocked: { question: question || read.blocked.question, options }, rule: 'codex.dialog.question', context: [], top: i }
    }
  }
  // an unknown title: the paragraph nearest the options when one lies above them in the
  // dialog, a guess (codex.dialog.numbered); none (the options right under the conversation):
  // no question at all (codex.dialog.untitled). Never a conversation cell as the question.
  if (paragraph.length) {
    const top = paragraph[0]
    const question = paragraph.map((i) => rowAt(i).trim()).join(' ')
    const context = rowsBetween(paragraph[paragraph.length - 1] + 1, optionRow)
    // a known title wrapped onto two rows (a narrow pane)
    for (const kind of v.dialogs) {
      const m = kind.title.exec(question)
      if (m && m[0].length === question.length)
        return { blocked: { question: (m[1] ?? m[0]).trim(), options }, rule: kind.rule, context, top, tentative: kind.userMenu }
    }
    return { blocked: { question, options }, rule: 'codex.dialog.numbered', context, top, tentative: true }
  }
  return { blocked: { question: '', options }, rule: 'codex.dialog.untitled', context: [], top: optionRow, tentative: true }
}

// rows after a live dialog's options that mean the list is old conversation
const LIVE_BREAKER = /^(?:[•◦■]\s|›\s+(?!\d{1,2}\.\s))/

export function codexLayoutOf(screen: string, v: CodexVocabulary = V): CodexLayout {
  const lines = screenLines(screen)
  const width = paneWidth(lines)
  const layout: CodexLayout = {
    lines,
    width,
    composer: -1,
    convEnd: lines.length,
    exited: false,
    picker: false,
    planMode: false,
  }
  const composer = findComposer(lines, v)
  if (composer.row >= 0) {
    layout.composer = composer.row
    layout.convEnd = composer.row
    layout.planMode = composer.footer.some((l) => v.planModeLabel.test(l))
    // a popup drawn over the conversation, right above the composer ("Enable full access?"):
    // numbered options and their hint row ("enter select · esc back") end just above it
    const above = lines.slice(0, composer.row)
    let end = above.length - 1
    while (end >= 0 && !above[end].trim()) end--
    if (end >= 0 && anyMatch(v.dialog.hint, above[end])) {
      const read = readDialog(above, 0, width, v.dialog, LIVE_BREAKER)
      if (read) {
        layout.dialog = dialogOf(above, read, v)
        layout.convEnd = layout.dialog.top
      }
    }
    return layout
  }
  const read = readDialog(lines, 0, width, v.dialog, LIVE_BREAKER)
  if (read) {
    layout.dialog = dialogOf(lines, read, v)
    layout.convEnd = layout.dialog.top
    return layout
  }
  // no composer and no dialog: codex has quit, or `codex resume` shows its picker
  const tail = lines.slice(-12).map((l) => l.trim())
  layout.exited = tail.some((t) => v.exitSummary[0].test(t)) && tail.some((t) => v.exitSummary[1].test(t))
  layout.picker = !layout.exited && lines.slice(0, 4).some((l) => v.picker.test(l))
  return layout
}

/**
 * A tool step's cell ("Ran ls", "Added hello.py (+6 -0)", "Explored" + its "└ Read …" rows).
 * Prose can open with the same verb ("Running the test script; it takes a few seconds."):
 * a sentence with no "└" result row under it is prose.
 */
function isToolCell(text: string, next: string, v: CodexVocabulary): boolean {
  if (!anyMatch(v.toolCell, text)) return false
  return v.planCell.test(text) || /^\s*└/.test(next) || !/[.!?:]$/.test(text.trimEnd())
}

/** Cut the conversation rows into blocks. */
export function codexBlocksOf(layout: CodexLayout, v: CodexVocabulary = V): CodexBlock[] {
  const { lines, convEnd } = layout
  const cut = new BlockCut<BlockKind>()
  for (let i = 0; i < convEnd; i++) {
    const l = lines[i]
    if (cut.blankRow(l)) continue
    const wasBlank = cut.afterBlank
    if (isBoxArt(l) || isRule(l)) {
      cut.end()
      continue
    }
    if (anyMatch(v.chrome, l)) continue
    if (v.banner.test(l)) {
      cut.open('banner', l.trim())
      // the header's own rows (cwd, "permissions: YOLO mode") run to the next blank row
      while (i + 1 < convEnd && lines[i + 1].trim()) cut.cur!.rows.push(lines[++i].trim())
      cut.end()
      continue
    }
    if (v.doneMarker.test(l)) {
      cut.open('done', l.trim())
      cut.end()
      continue
    }
    if (indentOf(l) === 0) {
      if (v.prompt.test(l)) {
        cut.open('prompt', l.replace(v.prompt, '  '))
        continue
      }
      if (v.interrupted.test(l)) {
        cut.open('interrupted', l.trim())
        continue
      }
      const err = v.turnError.exec(l)
      if (err) {
        cut.open('error', err[1].trim())
        continue
      }
      if (v.cell.test(l)) {
        const text = l.replace(v.cell, '')
        let kind: BlockKind = 'prose'
        if (v.status.test(l)) kind = 'status'
        else if (v.reconnecting.test(text)) kind = 'status'
        else if (isToolCell(text, lines[i + 1] ?? '', v)) kind = 'tool'
        else if (anyMatch(v.infoCell, text)) kind = 'info'
        cut.open(kind, l.replace(v.cell, '  '))
        continue
      }
      if (anyMatch(v.infoCell, l)) {
        cut.open('info', l)
        continue
      }
      cut.open('other', l)
      continue
    }
    // an indented row: part of the cell above (prose keeps its paragraphs across blank rows)
    if (cut.cur && (!wasBlank || cut.cur.kind === 'prose' || cut.cur.kind === 'prompt')) {
      if (wasBlank) cut.cur.rows.push('')
      cut.cur.rows.push(l)
      continue
    }
    cut.open('other', l)
  }
  return cut.blocks
}

/** A prose cell's logical lines: the two-column indent removed, codex's own wraps joined. */
function proseLines(b: CodexBlock, width: number): string[] {
  return unwrapProse(b.rows, width, 0, (row) => row.replace(/^ {2}/, '').trimEnd())
}

/** A tool cell as one step: its first row, plus its first result row. */
function toolStep(b: CodexBlock): string {
  const first = b.rows[0].trim()
  const result = b.rows
    .slice(1)
    .map((r) => r.replace(/^[\s└│]+/, '').trim())
    .find((r) => r)
  return result && !V.planCell.test(first) ? `${first} · ${result}` : first
}

/** The plan checklist of a plan cell: its title and one row per step, as drawn. */
function planOf(b: CodexBlock, v: CodexVocabulary): string[] {
  const out = [b.rows[0].trim()]
  for (const r of b.rows.slice(1)) {
    const m = v.planItem.exec(r)
    if (m) out.push(`${m[1]} ${m[2].trim()}`)
  }
  return out
}

const LIST_MARK = /^(?:[•◦▪‣]|[-*])\s+/

function transcriptOf(layout: CodexLayout, blocks: readonly CodexBlock[], v: CodexVocabulary): string[] {
  const out: string[] = []
  if (layout.dialog) {
    const { lines } = layout
    for (let i = lines.length - 1; i >= layout.dialog.top && out.length < TRANSCRIPT_LINES; i--) {
      const t = lines[i].trim()
      if (!t || anyMatch(v.dialog.hint, lines[i]) || isBoxArt(lines[i])) continue
      out.push(t.replace(/^›\s*/, ''))
    }
  }
  for (let k = blocks.length - 1; k >= 0 && out.length < TRANSCRIPT_LINES; k--) {
    const b = blocks[k]
    if (b.kind === 'banner' || b.kind === 'status') continue
    for (let i = b.rows.length - 1; i >= 0 && out.length < TRANSCRIPT_LINES; i--) {
      const t = b.rows[i].replace(/^[\s└│]+/, '').trim()
      if (t) out.push(t)
    }
  }
  return out.reverse()
}

/** Which of its blocks the turn policy reads as prompts, prose and tool steps (src/card/turn.ts). */
const CODEX_TURN_BLOCKS: BlockKinds = { prompt: ['prompt', 'banner'], prose: ['prose'], tool: ['tool'] }

/** Read a Codex CLI screen. A screen with none of codex's landmarks degrades to the fallback. */
export function readCodex(screen: string, agent: AgentInfo | undefined, v: CodexVocabulary = V): ScreenReading {
  const layout = codexLayoutOf(screen, v)
  const mode = layout.planMode ? 'plan' : undefined
  const modeDecided: Decision = mode
    ? { rule: 'codex.mode.plan', why: 'the footer shows "Plan mode"' }
    : { rule: 'codex.mode.none', why: 'no Plan mode label in the footer (codex reports no other mode)' }
  const withMode = (r: ScreenReading): ScreenReading => {
    const out = { ...r, decisions: { ...r.decisions, permission_mode: modeDecided } }
    return mode ? { ...out, permission_mode: mode } : out
  }
  const decided = (rule: string, why: string): Pick<ScreenReading, 'rule' | 'decisions'> => ({
    rule,
    decisions: { headline: { rule, why }, detail: { rule, why } },
  })

  if (layout.exited) {
    const summary = layout.lines.map((l) => l.trim()).filter((t) => anyMatch(v.exitSummary, t) || /^Or run codex resume\b/.test(t))
    return { headline: '', detail: summary.join('\n'), parsed: true, ...decided('codex.exited', 'codex quit and printed its session summary') }
  }
  if (layout.picker) {
    const rows = layout.lines.map((l) => l.trim()).filter((t) => v.picker.test(t) || v.pickerRow.test(t))
    return {
      headline: '',
      detail: rows.map((t) => t.replace(/^›\s+/, '› ').replace(/\s{2,}/g, '  ')).join('\n'),
      parsed: true,
      ...decided('codex.resume-picker', 'the `codex resume` session picker is on screen'),
    }
  }

  const blocks = codexBlocksOf(layout, v)
  const recognised = layout.composer >= 0 || !!layout.dialog || blocks.some((b) => b.kind === 'banner' || b.kind === 'prompt')
  if (!recognised) return unrecognised(screen, 'codex')

  const transcript = transcriptOf(layout, blocks, v)
  const base = { transcript: transcript.length ? transcript : undefined, parsed: true }

  // a menu the user opened, or numbered options under no known title, while herdr does not
  // call the pane blocked: the conversation heads the card (the menu is not a question)
  if (layout.dialog?.tentative && agent?.agent_status !== 'blocked') {
    layout.convEnd = layout.dialog.top
    layout.dialog = undefined
  }
  if (layout.dialog) {
    const { blocked, context, rule } = layout.dialog
    const described = blocked.options.filter((o) => o.description).length
    const lines = [...context]
    // an edit dialog: the proposed change is drawn as the tool cell right above it
    const above = blocks[blocks.length - 1]
    if (rule === 'codex.dialog.patch' && above?.kind === 'tool') lines.unshift(above.rows[0].trim())
    return withMode({
      ...base,
      headline: blocked.question,
      detail: lines.length ? lines.join('\n') : blocked.question,
      blocked,
      drive: { kind: 'numbered' },
      rule,
      decisions: {
        headline: { rule, why: `a live dialog: "${blocked.question}"` },
        detail: { rule, why: lines.length ? `${lines.length} context rows` : 'no context rows: the question' },
        'blocked.question': { rule, why: `a live dialog: "${blocked.question}"` },
        'blocked.options': {
          rule: 'codex.dialog.options',
          why: `${blocked.options.length} numbered options, cursor on ${blocked.options.findIndex((o) => o.selected) + 1}`,
        },
        ...(described
          ? {
              'blocked.options.description': {
                rule: 'codex.dialog.option-descriptions',
                why: `${described} of ${blocked.options.length} options carry a description after a gap of two or more spaces`,
              },
            }
          : {}),
      },
    })
  }

  let start = 0
  for (let k = blocks.length - 1; k >= 0; k--) {
    if (blocks[k].kind === 'prompt' || blocks[k].kind === 'banner') {
      start = k + 1
      break
    }
  }
  const turnBlocks = blocks.slice(start)
  const status = [...turnBlocks].reverse().find((b) => b.kind === 'status')
  const working = !!status || agent?.agent_status === 'working'
  const turnView = turnByKind(
    blocks,
    CODEX_TURN_BLOCKS,
    (b) => proseLines(b, layout.width),
    (b) => toolStep(b),
  )
  const turn = readTurn(turnView, agent, working, 'codex')
  let { headline, detail, rule } = turn
  let why = turn.why
  headline = headline.replace(LIST_MARK, '')

  // how the turn ended, when it ended without a word
  const last = turnBlocks[turnBlocks.length - 1]
  const nothing = rule === 'codex.turn.nothing'
  if (last?.kind === 'error') {
    detail = nothing ? last.rows[0] : `${detail}\n\n${last.rows[0]}`
    rule = 'codex.turn.error'
    why = `the turn ended with an error: ${last.rows[0].trim()}`
  } else if (last?.kind === 'interrupted' && nothing) {
    detail = 'Conversation interrupted'
    rule = 'codex.turn.interrupted'
    why = 'the turn was interrupted before it said anything'
  } else if (status && nothing) {
    const text = status.rows[0].trim().replace(v.statusTail, '')
    const sub = status.rows
      .slice(1)
      .map((r) => r.replace(/^[\s└│]+/, '').trim())
      .filter(Boolean)
    detail = [text, ...sub].join('\n')
    rule = v.reconnecting.test(text) ? 'codex.status.reconnecting' : 'codex.status.working'
    why = `nothing said yet this turn; status row: ${text}`
  }

  // the plan checklist, when this turn drew one
  const plan = [...turnBlocks].reverse().find((b) => b.kind === 'tool' && v.planCell.test(b.rows[0].trim()))
  if (plan) detail = capDetail([...(detail ? [detail, ''] : []), ...planOf(plan, v)])

  return withMode({ ...base, headline, detail, rule, decisions: { headline: { rule, why }, detail: { rule, why } } })
}

/** The Shift+Tab collaboration mode the footer shows: "plan", else undefined (Default shows no label). */
export function codexMode(screen: string): string | undefined {
  const layout = codexLayoutOf(screen)
  if (layout.composer < 0) return undefined
  return layout.planMode ? 'plan' : 'default'
}

/**
 * Every rule the codex grammar can name, in the order it tries them: what each
 * says is data (codex-rules.json, checked at load), the ids are the code's.
 */
export const codexRules = grammarRules('codex', CODEX_RULES)

// Each kind's grammar is an object of its own behind the one ScreenGrammar interface
// (src/card/card.ts): the same fields filled with the kind's own readers. `duplicates`
// lists codex's and opencode's as alike; they stay apart by design (adding or changing a
// kind never edits another's).
export const codexGrammar: ScreenGrammar = {
  kinds: ['codex'],
  rules: codexRules,
  // a digit picks and confirms the option at once (real 0.171.0: "1" applied an edit)
  digitSelects: true,
  drives: V.drives,
  read: (screen, agent) => readCodex(screen, agent),
  permissionMode: (screen) => codexMode(screen),
  dialog: (screen): Blocked | undefined => codexLayoutOf(screen).dialog?.blocked,
}
