// opencode screen grammar: screen text → card fields. Pure.
// Layout (opencode 1.18.33, fixtures/screens/opencode): a full-screen TUI. The conversation is
// ┃-framed blocks (user prompts, tool boxes) and unframed rows at the prose column
// (assistant text, one-row tool steps, the "▣  Build · <model>" row that ends a turn).
// Under it either the prompt box (framed rows down to a "╹▀▀▀" edge, then a footer), or
// a framed dialog that replaces it at the bottom: the question picker (numbered options)
// or "△ Permission required" (unnumbered buttons on one row). opencode draws no cursor:
// the highlighted option is shown by colour only, so `selected` comes from the SGR codes (../sgr.ts)
// when the screen carries them (herdr `agent read --format ansi`), and from plain text it
// is the first option — the one opencode highlights when a dialog opens.
import type { AgentInfo } from '../../herdr/types'
import { TRANSCRIPT_LINES, type DialogReading, type Option, type Region, type ScreenGrammar, type ScreenReading } from '../card'
import { grammarRules } from '../rules'
import OPENCODE_RULES from './opencode-rules.json'
import { screenLines } from '../clean'
import { readDialog } from '../dialog'
import { anyMatch, isBoxArt, paneWidth } from '../lines'
import { unrecognised } from './fallback'
import { DEFAULT_CELL, highlighted, styleAt, styledRows, type Cell, type StyledRow } from '../sgr'
import { type BlockKinds, readTurn, turnByKind, turnFields, unwrapProse } from '../turn'
import { opencodeVocabulary as V, type OpencodeVocabulary } from './opencode-vocabulary'

type BlockKind = 'user' | 'tool' | 'prose' | 'status'
interface Block {
  kind: BlockKind
  /** content rows (frame stripped for framed blocks; as on screen for prose) */
  rows: string[]
}

export interface OpencodeDialog {
  blocked: DialogReading
  /** rows between the title and the buttons (tool kind, command, diff) */
  context: string[]
  kind: 'question' | 'permission'
  /** the rule that read it, when not opencode.dialog.<kind> */
  rule?: string
}

export interface OpencodeLayout {
  lines: string[]
  width: number
  /** the conversation is lines[0, convEnd) */
  convEnd: number
  /** screen rows of the dialog box at the bottom, when one is live */
  dialogRows?: [number, number]
  dialog?: OpencodeDialog
  /** the prompt box is on screen */
  promptBox: boolean
  /** opencode has exited and printed its session summary */
  exited: boolean
}

// ---- SGR: which option carries the highlight colour --------------------------------

/** The row's own background: behind the first blank after its frame glyph (or its start). */
function baseOf(row: StyledRow, v: OpencodeVocabulary): Cell {
  const m = v.frame.exec(row.text)
  const at = m ? m[0].length : 0
  return row.cells[at] ?? row.cells[0] ?? DEFAULT_CELL
}

// ---- layout --------------------------------------------------------------------------

/** The row without opencode's left ┃ bar and its padding (lines.ts stripFrame strips any frame glyphs at both edges). */
function stripFrameBar(row: string, v: OpencodeVocabulary): string {
  return row.replace(v.frameStrip, '')
}

/** The live dialog in box rows [top, bottom] (screen rows), if one is there. */
function readBox(lines: readonly string[], top: number, bottom: number, styled: StyledRow[] | undefined, v: OpencodeVocabulary): OpencodeDialog | undefined {
  const rows: string[] = []
  for (let i = top; i <= bottom; i++) rows.push(stripFrameBar(lines[i], v).trimEnd())

  // permission: "△ Permission required", context rows, one row of buttons with hints
  const titleAt = rows.findIndex((r) => v.permissionTitle.test(r.trim()))
  if (titleAt >= 0) {
    const question = v.permissionTitle.exec(rows[titleAt].trim())![1].trim()
    let buttonsAt = -1
    let labels: string[] = []
    for (let k = rows.length - 1; k > titleAt; k--) {
      if (!anyMatch(v.dialogHint, rows[k])) continue
      const hint = v.hintStart.exec(rows[k])
      let before = (hint ? rows[k].slice(0, hint.index) : rows[k]).trim()
      buttonsAt = k
      // a narrow pane (72 columns) puts the hints on their own row under the buttons
      if (!before) {
        let j = k - 1
        while (j > titleAt && !rows[j].trim()) j--
        if (j > titleAt && rows[j].trim().split(/\s{2,}/).length >= 2) {
          before = rows[j].trim()
          buttonsAt = j
        }
      }
      labels = before
        ? before
            .split(/\s{2,}/)
            .map((s) => s.trim())
            .filter(Boolean)
        : []
      break
    }
    const context: string[] = []
    for (let k = titleAt + 1; k < (buttonsAt >= 0 ? buttonsAt : rows.length); k++) {
      const t = rows[k].trim().replace(/^#\s+/, '')
      if (t && !isBoxArt(t)) context.push(t)
    }
    const options: Option[] = labels.map((label) => ({ index: 0, label, selected: false }))
    let pick = -1
    const srow = buttonsAt >= 0 ? styled?.[top + buttonsAt] : undefined
    if (srow) {
      const base = baseOf(srow, v)
      const found: { cell: Cell; base: Cell }[] = []
      let from = 0
      for (const o of options) {
        const s = styleAt(srow, o.label, from)
        if (!s) break
        found.push({ cell: s.cell, base })
        from = s.end
      }
      if (found.length === options.length) pick = highlighted(found)
    }
    if (options.length) options[Math.max(pick, 0)].selected = true
    return { blocked: { question, options }, context, kind: 'permission' }
  }

  // question picker: numbered options, read by the shared dialog reader
  const width = paneWidth(rows)
  const read = readDialog(rows, 0, width, v.question, /(?!)/)
  if (!read) return reviewOf(rows, v)
  const options = read.blocked.options.map((o) => ({ ...o, selected: false }))
  let pick = -1
  if (styled) {
    const found: { cell: Cell; base: Cell }[] = []
    let next = 0
    for (const o of options) {
      // the option's own row: the next "N." row of the box
      let hit: { cell: Cell; base: Cell } | undefined
      for (let k = next; k < rows.length; k++) {
        const m = v.question.option.exec(rows[k])
        if (!m || Number(m[3]) !== o.index) continue
        const srow = styled[top + k]
        const s = srow ? styleAt(srow, `${o.index}.`, v.frame.exec(srow.text)?.[0].length ?? 0) : undefined
        if (srow && s) hit = { cell: s.cell, base: baseOf(srow, v) }
        next = k + 1
        break
      }
      if (!hit) break
      found.push(hit)
    }
    if (found.length === options.length) pick = highlighted(found)
  }
  if (options.length) options[Math.max(pick, 0)].selected = true
  return { blocked: { question: read.blocked.question, options }, context: [], kind: 'question' }
}

/**
 * The last tab of a question tool call with several questions ("Style   Case   Confirm"):
 * no options, a title ("Review") and the answers, submitted with Enter. Its title is the
 * question; the answers are the context.
 */
function reviewOf(rows: readonly string[], v: OpencodeVocabulary): OpencodeDialog | undefined {
  if (!rows.some((r) => v.reviewHint.test(r))) return undefined
  const texts = rows.map((r) => r.trim()).filter((t) => t && !anyMatch(v.dialogHint, t) && !isBoxArt(t))
  const tabbed = texts.length > 1 && texts[0].split(/\s{2,}/).length >= 2
  const body = tabbed ? texts.slice(1) : texts
  if (!body.length) return undefined
  return { blocked: { question: body[0], options: [] }, context: body.slice(1), kind: 'question', rule: 'opencode.dialog.review' }
}

export function opencodeLayoutOf(screen: string, v: OpencodeVocabulary = V): OpencodeLayout {
  const lines = screenLines(screen)
  const width = paneWidth(lines)
  const exited = lines.some((l) => v.exitSummary[0].test(l.trim())) && lines.some((l) => v.exitSummary[1].test(l.trim()))
  const layout: OpencodeLayout = { lines, width, convEnd: lines.length, promptBox: false, exited }
  if (lines.length === 0) return layout

  // a framed run reaching the bottom row with dialog hints in it: a live dialog
  const last = lines.length - 1
  if (v.frame.test(lines[last])) {
    let top = last
    while (top - 1 >= 0 && v.frame.test(lines[top - 1])) top--
    let hinted = false
    for (let i = top; i <= last; i++) if (anyMatch(v.dialogHint, lines[i])) hinted = true
    if (hinted) {
      layout.dialogRows = [top, last]
      layout.convEnd = top
      layout.dialog = readBox(lines, top, last, styledRows(screen), v)
      return layout
    }
  }
  // else the prompt box: framed rows above its "╹▀▀▀" edge
  for (let i = last; i >= 0; i--) {
    if (!v.inputBottom.test(lines[i])) continue
    let top = i
    while (top - 1 >= 0 && v.frame.test(lines[top - 1])) top--
    layout.convEnd = top
    layout.promptBox = true
    break
  }
  return layout
}

/** Cut the conversation into blocks: framed (user prompt or tool box) and unframed rows. */
function blocksOf(layout: OpencodeLayout, v: OpencodeVocabulary): Block[] {
  const { lines, convEnd } = layout
  const blocks: Block[] = []
  let prose: Block | undefined
  let blank = false
  for (let i = 0; i < convEnd; i++) {
    const l = lines[i]
    if (v.frame.test(l)) {
      prose = undefined
      const start = i
      const rows: string[] = []
      while (i < convEnd && v.frame.test(lines[i])) rows.push(stripFrameBar(lines[i++], v).trimEnd())
      i--
      const content = rows.filter((r) => r.trim())
      if (!content.length) continue
      // a box cut by the top of the screen: its first rows (the prompt, the command) are gone
      const cut = start === 0 && rows[0].trim() !== ''
      const kind: BlockKind = !cut && !anyMatch(v.framedTool, content[0].trim()) ? 'user' : 'tool'
      blocks.push({ kind, rows: content })
      continue
    }
    const t = l.trim()
    if (!t) {
      blank = true
      continue
    }
    const wasBlank = blank
    blank = false
    if (isBoxArt(l) || anyMatch(v.chrome, t)) {
      prose = undefined
      continue
    }
    if (v.statusRow.test(t)) {
      prose = undefined
      blocks.push({ kind: 'status', rows: [t.replace(v.statusRow, '')] })
      continue
    }
    if (anyMatch(v.inlineTool, t)) {
      prose = undefined
      blocks.push({ kind: 'tool', rows: [t] })
      continue
    }
    if (prose) {
      if (wasBlank) prose.rows.push('')
      prose.rows.push(l)
    } else {
      prose = { kind: 'prose', rows: [l] }
      blocks.push(prose)
    }
  }
  return blocks
}

/**
 * Was `line` soft-wrapped into `next`? The terminal wraps at word boundaries, `slack`
 * columns short of the pane's width: wrapped when next's first word would not have fitted.
 */

/** A prose block's logical lines: indentation removed, soft wraps joined. */
function proseLines(rows: readonly string[], width: number, v: OpencodeVocabulary): string[] {
  const indent = Math.min(...rows.filter((r) => r.trim()).map((r) => r.length - r.trimStart().length))
  return unwrapProse(rows, width, v.wrapSlack, (row) => row.slice(indent).trimEnd())
}

function toolStep(b: Block, v: OpencodeVocabulary): string {
  return b.rows[0].trim().replace(v.spinner, '')
}

/** Recent readable rows (conversation, then the dialog), frames and chrome removed. */
function transcriptOf(layout: OpencodeLayout, v: OpencodeVocabulary): string[] {
  const { lines, dialogRows, convEnd } = layout
  const end = dialogRows ? dialogRows[1] + 1 : convEnd
  const out: string[] = []
  for (let i = end - 1; i >= 0 && out.length < TRANSCRIPT_LINES; i--) {
    const l = lines[i]
    if (!l.trim() || isBoxArt(l)) continue
    const t = stripFrameBar(l, v).trim().replace(v.statusRow, '').replace(/^△\s+/, '').replace(v.spinner, '')
    if (!t || isBoxArt(t) || anyMatch(v.chrome, t)) continue
    if (dialogRows && i >= dialogRows[0] && anyMatch(v.dialogHint, t)) {
      // the button row keeps its buttons, loses its key hints
      const hint = v.hintStart.exec(t)
      const before = hint ? t.slice(0, hint.index).trim() : ''
      if (before) out.push(before.replace(/\s{2,}/g, '  '))
      continue
    }
    out.push(t)
  }
  return out.reverse()
}

/** Which of its blocks the turn policy reads as prompts, prose and tool steps (src/card/turn.ts). */
const OPENCODE_TURN_BLOCKS: BlockKinds = { prompt: ['user'], prose: ['prose'], tool: ['tool'] }

/** Read an opencode screen. Neither prompt box, dialog nor exit summary → the fallback. */
export function readOpencode(screen: string, agent: AgentInfo | undefined, v: OpencodeVocabulary = V): ScreenReading {
  const layout = opencodeLayoutOf(screen, v)
  if (layout.exited && !layout.promptBox && !layout.dialogRows) {
    // opencode quit: nothing is running in the pane any more
    const summary = layout.lines.map((l) => l.trim()).filter((t) => anyMatch(v.exitSummary, t))
    const exited = { rule: 'opencode.layout.exited', why: `the session summary is on screen (${summary.length} rows)` }
    return {
      headline: '',
      detail: summary.map((t) => t.replace(/\s{2,}/g, ': ')).join('\n'),
      parsed: true,
      rule: exited.rule,
      decisions: { headline: exited, detail: exited },
    }
  }
  if (!layout.promptBox && !layout.dialogRows) return unrecognised(screen, 'opencode')
  const regions: Region[] = [{ name: 'conversation', from: 0, to: layout.convEnd }]
  if (layout.dialogRows) regions.push({ name: 'dialog', from: layout.dialogRows[0], to: layout.dialogRows[1] + 1 })

  const transcript = transcriptOf(layout, v)
  const base = { transcript: transcript.length ? transcript : undefined, parsed: true }

  if (layout.dialog) {
    const { blocked, context, kind } = layout.dialog
    const picked = blocked.options.findIndex((o) => o.selected)
    const question = { rule: layout.dialog.rule ?? `opencode.dialog.${kind}`, why: `a live ${kind} dialog (rows ${layout.dialogRows?.join('-')})` }
    return {
      ...base,
      headline: blocked.question,
      detail: context.length ? context.join('\n') : blocked.question,
      blocked,
      identity: context,
      drive: { kind },
      rule: question.rule,
      regions,
      decisions: {
        headline: question,
        detail: { rule: question.rule, why: context.length ? `${context.length} context rows above the question` : 'no context rows: the question' },
        'blocked.question': question,
        'blocked.options': {
          rule: kind === 'permission' ? 'opencode.dialog.buttons' : 'opencode.dialog.numbered',
          why: `${blocked.options.length} options; highlighted: ${picked >= 0 ? picked + 1 : 'none'} (${kind === 'permission' ? 'by colour, else the first' : 'by colour or cursor'})`,
        },
      },
    }
  }

  // the current turn only: after the last prompt (a stale answer is not this turn's)
  const turnView = turnByKind(
    blocksOf(layout, v),
    OPENCODE_TURN_BLOCKS,
    (b) => proseLines(b.rows, layout.width, v),
    (b) => toolStep(b, v),
  )
  const turn = readTurn(turnView, agent, agent?.agent_status === 'working', 'opencode')
  return { ...base, ...turnFields(turn), regions }
}

/**
 * Every rule the opencode grammar can name, in the order it tries them: what each
 * says is data (opencode-rules.json, checked at load), the ids are the code's.
 */
export const opencodeRules = grammarRules('opencode', OPENCODE_RULES)

// Each kind's grammar is an object of its own behind the one ScreenGrammar interface
// (src/card/card.ts): the same fields filled with the kind's own readers. `duplicates`
// lists codex's and opencode's as alike; they stay apart by design (adding or changing a
// kind never edits another's).
export const opencodeGrammar: ScreenGrammar = {
  kinds: ['opencode'],
  rules: opencodeRules,
  wantsAnsi: true,
  drives: V.drives,
  read: (screen, agent) => readOpencode(screen, agent),
  dialog: (screen): DialogReading | undefined => opencodeLayoutOf(screen).dialog?.blocked,
}
