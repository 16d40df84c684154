// opencode screen grammar: screen text → card fields. Pure.
// Layout (opencode 1.18.33, fixtures/screens/opencode): a full-screen TUI. The conversation is
// ┃-framed blocks (user prompts, tool boxes) and unframed rows at the prose column
// (assistant text, one-row tool steps, the "▣  Build · <model>" row that ends a turn).
// Under it either the prompt box (framed rows down to a "╹▀▀▀" edge, then a footer), or
// a framed dialog that replaces it at the bottom: the question picker (numbered options)
// or "△ Permission required" (unnumbered buttons on one row). opencode draws no cursor:
// the highlighted option is shown by colour only, so `selected` comes from the SGR codes
// when the screen carries them (herdr `agent read --format ansi`), and from plain text it
// is the first option — the one opencode highlights when a dialog opens.
import type { AgentInfo } from '../../herdr/types'
import type { DialogReading, Option, Region, ScreenGrammar, ScreenReading } from '../card'
import { fallbackRules, manifest, turnRules } from '../rules'
import { screenLines } from '../clean'
import { readDialog } from '../dialog'
import { columns, isBoxArt, paneWidth } from '../lines'
import { unrecognised } from './fallback'
import { readTurn, unwrapProse } from '../turn'
import { opencodeVocabulary as V, type OpencodeVocabulary } from './opencode-vocabulary'

const TRANSCRIPT_LINES = 12

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

const anyMatch = (res: readonly RegExp[], s: string) => res.some((r) => r.test(s))

// ---- SGR: which option carries the highlight colour --------------------------------

interface Cell {
  fg: string
  bg: string
  inverse: boolean
}
interface StyledRow {
  text: string
  /** one style per UTF-16 unit of text */
  cells: Cell[]
}

const DEFAULT_CELL: Cell = { fg: '', bg: '', inverse: false }

function applySgr(params: string, cur: Cell): Cell {
  const p = params === '' ? [0] : params.split(/[;:]/).map((x) => (x === '' ? 0 : Number(x)))
  let c = { ...cur }
  for (let i = 0; i < p.length; i++) {
    const n = p[i]
    if (n === 0) c = { ...DEFAULT_CELL }
    else if (n === 7) c.inverse = true
    else if (n === 27) c.inverse = false
    else if ((n >= 30 && n <= 37) || (n >= 90 && n <= 97)) c.fg = String(n)
    else if (n === 39) c.fg = ''
    else if ((n >= 40 && n <= 47) || (n >= 100 && n <= 107)) c.bg = String(n)
    else if (n === 49) c.bg = ''
    else if (n === 38 || n === 48) {
      let v = ''
      if (p[i + 1] === 5) {
        v = `5;${p[i + 2]}`
        i += 2
      } else if (p[i + 1] === 2) {
        v = `2;${p[i + 2]};${p[i + 3]};${p[i + 4]}`
        i += 4
      }
      if (n === 38) c.fg = v
      else c.bg = v
    }
  }
  return c
}

// what cleanScreen drops or turns into a space, kept in step so columns match its rows
const DROPPED = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff\ufffd\r]/
const AS_SPACE = /[\u00a0\u2007\u202f]/

/** The screen's rows with the style of every character; undefined for plain text. */
export function styledRows(raw: string): StyledRow[] | undefined {
  if (typeof raw !== 'string' || !raw.includes('\u001b')) return undefined
  const rows: StyledRow[] = []
  let text = ''
  let cells: Cell[] = []
  let cur: Cell = { ...DEFAULT_CELL }
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]
    if (ch === '\u001b') {
      const next = raw[i + 1]
      if (next === '[') {
        let j = i + 2
        while (j < raw.length && /[0-9;:?<=>]/.test(raw[j])) j++
        if (j < raw.length && raw[j] === 'm') cur = applySgr(raw.slice(i + 2, j), cur)
        i = j // the final byte (or a cut sequence) is skipped
      } else if (next === ']') {
        // OSC: up to BEL or ST
        let j = i + 2
        while (j < raw.length && raw[j] !== '\u0007' && !(raw[j] === '\u001b' && raw[j + 1] === '\\')) j++
        i = raw[j] === '\u001b' ? j + 1 : j
      } else i += 1
      continue
    }
    if (ch === '\n' || (ch === '\r' && raw[i + 1] !== '\n')) {
      // a lone CR is a row break for cleanScreen too
      rows.push({ text, cells })
      text = ''
      cells = []
      continue
    }
    if (ch === '\t') {
      text += '    '
      for (let k = 0; k < 4; k++) cells.push(cur)
      continue
    }
    if (DROPPED.test(ch)) continue
    text += AS_SPACE.test(ch) ? ' ' : ch
    cells.push(cur)
  }
  rows.push({ text, cells })
  return rows
}

const bgKey = (c: Cell) => (c.inverse ? `inv:${c.fg}` : c.bg)
const sigKey = (c: Cell) => `${c.fg}|${c.bg}|${c.inverse}`

/** Style at the first character of `needle` in the row (searching from `from`). */
function styleAt(row: StyledRow, needle: string, from = 0): { cell: Cell; end: number } | undefined {
  const at = row.text.indexOf(needle, from)
  if (at < 0 || at >= row.cells.length) return undefined
  return { cell: row.cells[at], end: at + needle.length }
}

/** The row's own background: behind the first blank after its frame glyph (or its start). */
function baseOf(row: StyledRow, v: OpencodeVocabulary): Cell {
  const m = v.frame.exec(row.text)
  const at = m ? m[0].length : 0
  return row.cells[at] ?? row.cells[0] ?? DEFAULT_CELL
}

/**
 * Which of the options is highlighted: the one drawn on a background other than its
 * row's, else the one whose colours differ from all the others (which agree). -1 if
 * the colours do not say.
 */
function highlighted(found: { cell: Cell; base: Cell }[]): number {
  if (found.length === 0) return -1
  const off = found.flatMap((f, k) => (bgKey(f.cell) !== bgKey(f.base) ? [k] : []))
  if (off.length === 1) return off[0]
  const keys = found.map((f) => sigKey(f.cell))
  for (let k = 0; k < keys.length; k++) {
    const others = keys.filter((_, j) => j !== k)
    if (others.length && others.every((o) => o === others[0]) && keys[k] !== others[0]) return k
  }
  return -1
}

// ---- layout --------------------------------------------------------------------------

function stripFrame(row: string, v: OpencodeVocabulary): string {
  return row.replace(v.frameStrip, '')
}

/** The live dialog in box rows [top, bottom] (screen rows), if one is there. */
function readBox(
  lines: readonly string[],
  top: number,
  bottom: number,
  styled: StyledRow[] | undefined,
  v: OpencodeVocabulary,
): OpencodeDialog | undefined {
  const rows: string[] = []
  for (let i = top; i <= bottom; i++) rows.push(stripFrame(lines[i], v).trimEnd())

  // permission: "△ Permission required", context rows, one row of buttons with hints
  const titleAt = rows.findIndex((r) => v.permissionTitle.test(r.trim()))
  if (titleAt >= 0) {
    const question = v.permissionTitle.exec(rows[titleAt].trim())![1].trim()
    let buttonsAt = -1
    let labels: string[] = []
    for (let k = rows.length - 1; k > titleAt; k--) {
      if (!anyMatch(v.dialogHint, rows[k])) continue
      const hint = v.hintStart.exec(rows[k])
      const before = (hint ? rows[k].slice(0, hint.index) : rows[k]).trim()
      labels = before ? before.split(/\s{2,}/).map((s) => s.trim()).filter(Boolean) : []
      buttonsAt = k
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
    if (options.length) options[pick >= 0 ? pick : 0].selected = true
    return { blocked: { question, options }, context, kind: 'permission' }
  }

  // question picker: numbered options, read by the shared dialog reader
  const width = paneWidth(rows)
  const read = readDialog(rows, 0, width, v.question, /(?!)/)
  if (!read) return undefined
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
        const s = srow ? styleAt(srow, `${o.index}.`, (v.frame.exec(srow.text)?.[0].length ?? 0)) : undefined
        if (srow && s) hit = { cell: s.cell, base: baseOf(srow, v) }
        next = k + 1
        break
      }
      if (!hit) break
      found.push(hit)
    }
    if (found.length === options.length) pick = highlighted(found)
  }
  if (options.length) options[pick >= 0 ? pick : 0].selected = true
  return { blocked: { question: read.blocked.question, options }, context: [], kind: 'question' }
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
      while (i < convEnd && v.frame.test(lines[i])) rows.push(stripFrame(lines[i++], v).trimEnd())
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
    const t = stripFrame(l, v).trim().replace(v.statusRow, '').replace(/^△\s+/, '').replace(v.spinner, '')
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


/** Read an opencode screen. Neither prompt box, dialog nor exit summary → the fallback. */
export function readOpencode(screen: string, agent: AgentInfo | undefined, v: OpencodeVocabulary = V): ScreenReading {
  const layout = opencodeLayoutOf(screen, v)
  if (layout.exited && !layout.promptBox && !layout.dialogRows) {
    // opencode quit: nothing is running in the pane any more
    const summary = layout.lines.map((l) => l.trim()).filter((t) => anyMatch(v.exitSummary, t))
    const exited = { rule: 'opencode.layout.exited', why: `the session summary is on screen (${summary.length} rows)` }
    return { headline: '', detail: summary.map((t) => t.replace(/\s{2,}/g, ': ')).join('\n'), parsed: true, rule: exited.rule, decisions: { headline: exited, detail: exited } }
  }
  if (!layout.promptBox && !layout.dialogRows) return unrecognised(screen, 'opencode')
  const regions: Region[] = [{ name: 'conversation', from: 0, to: layout.convEnd }]
  if (layout.dialogRows) regions.push({ name: 'dialog', from: layout.dialogRows[0], to: layout.dialogRows[1] + 1 })

  const transcript = transcriptOf(layout, v)
  const base = { transcript: transcript.length ? transcript : undefined, parsed: true }

  if (layout.dialog) {
    const { blocked, context, kind } = layout.dialog
    const picked = blocked.options.findIndex((o) => o.selected)
    const question = { rule: `opencode.dialog.${kind}`, why: `a live ${kind} dialog (rows ${layout.dialogRows?.join('-')})` }
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
  const turn = readTurn(
    {
      blocks: blocksOf(layout, v),
      isPrompt: (b) => b.kind === 'user',
      isProse: (b) => b.kind === 'prose',
      isTool: (b) => b.kind === 'tool',
      proseOf: (b) => proseLines(b.rows, layout.width, v),
      stepOf: (b) => toolStep(b, v),
    },
    agent,
    agent?.agent_status === 'working',
    'opencode',
  )
  const decided = { rule: turn.rule, why: turn.why }
  return { ...base, headline: turn.headline, detail: turn.detail, rule: turn.rule, decisions: { headline: decided, detail: decided }, regions }
}

export const opencodeRules = manifest('opencode', [
  { id: 'opencode.layout.exited', field: 'headline', says: 'opencode quit and printed its session summary: the summary as detail' },
  { id: 'opencode.layout.unrecognised', field: 'headline', says: 'neither prompt box, dialog nor exit summary: the fallback reading' },
  { id: 'opencode.dialog.permission', field: 'blocked.question', says: 'a "Permission required" box with its buttons' },
  { id: 'opencode.dialog.question', field: 'blocked.question', says: 'a question-tool form with numbered options' },
  { id: 'opencode.dialog.buttons', field: 'blocked.options', says: 'unnumbered permission buttons (index 0), the highlighted one by colour' },
  { id: 'opencode.dialog.numbered', field: 'blocked.options', says: 'numbered question options, the highlighted one by colour' },
  ...turnRules('opencode'),
  ...fallbackRules,
])

export const opencodeGrammar: ScreenGrammar = {
  kinds: ['opencode'],
  rules: opencodeRules,
  wantsAnsi: true,
  drives: V.drives,
  read: (screen, agent) => readOpencode(screen, agent),
  dialog: (screen): DialogReading | undefined => opencodeLayoutOf(screen).dialog?.blocked,
}
