// pi screen grammar: screen text → card fields. Pure.
// Layout (pi 0.73.1, fixtures/screens/pi-*): startup banner, conversation, the loader row
// ("⠏ Working...") while a turn runs, then the editor between two ─ rules, then
// autocomplete and footer rows (cwd, token counters). pi has no bullets, no done marker
// and no approval UI. In plain text a user message, the assistant's text and a tool box
// are all rows indented one column; what is left of the structure is the spacing: one
// blank row inside a component (paragraphs, thinking → text), two or more between
// components (a box's padding row + the spacer). So the conversation is cut into groups
// at 2+ blank rows and each group is classified (pi-vocabulary.ts), and plain groups are
// told apart by the order a turn follows: user, then assistant text and tool boxes
// alternating, ending on text — so a run of plain groups alternates user/assistant.
import type { AgentInfo } from '../../herdr/types'
import { TRANSCRIPT_LINES, type DialogReading, type DriveState, type Region, type ScreenGrammar, type ScreenReading } from '../card'
import { grammarRules } from '../rules'
import PI_RULES from './pi-rules.json'
import { screenLines } from '../clean'
import { anyMatch, columns, isBoxArt, isDashedRule, isRule, paneWidth } from '../lines'
import { unrecognised } from './fallback'
import { type BlockKinds, readTurn, turnByKind, turnFields, unwrapProse } from '../turn'
import { piVocabulary as V, type PiVocabulary } from './pi-vocabulary'

// the editor grows with its draft; its two rules are never further apart than this
const MAX_EDITOR_ROWS = 40

/**
 * user = a prompt, text = the assistant's thinking + text, tool = a tool box, error = a
 * failed request's "Error: …" (the assistant's last word when the turn failed), ended =
 * "Operation aborted" under a stopped answer
 */
export type PiGroupKind = 'banner' | 'notice' | 'spinner' | 'tool' | 'user' | 'text' | 'error' | 'ended'

export interface PiGroup {
  kind: PiGroupKind
  /** rows as on screen (right-trimmed), blank rows inside kept */
  rows: string[]
}

export interface PiLayout {
  lines: string[]
  width: number
  /** rows of the editor's top and bottom rules (-1 when not on screen) */
  editorTop: number
  editorBottom: number
  /** the conversation is lines[0, convEnd) */
  convEnd: number
  groups: PiGroup[]
  /** the loader row is on screen (a turn is running) */
  spinning: boolean
}

function firstText(rows: readonly string[]): string {
  for (const r of rows) if (r.trim()) return r.trim()
  return ''
}
function lastText(rows: readonly string[]): string {
  for (let i = rows.length - 1; i >= 0; i--) if (rows[i].trim()) return rows[i].trim()
  return ''
}

type RawKind = PiGroupKind | 'plain' | 'toolTail' | 'hint'

function classify(rows: readonly string[], v: PiVocabulary): RawKind {
  const first = firstText(rows)
  if (anyMatch(v.banner, first)) return 'banner'
  if (v.spinner.test(first)) return 'spinner'
  if (anyMatch(v.turnEnd, first)) return 'ended'
  if (anyMatch(v.hint, first)) return 'hint'
  if (v.errorRow.test(first)) return 'error'
  if (anyMatch(v.toolHeader, first)) return 'tool'
  if (anyMatch(v.toolFooter, lastText(rows))) return 'toolTail'
  if (anyMatch(v.notice, first) && rows.filter((r) => r.trim()).length === 1) return 'notice'
  if (anyMatch(v.noticeBlock, first)) return 'notice'
  return 'plain'
}

/** Rows that are a component of their own even one blank row from the text above (the loader, "Operation aborted", an error, pi's hint right under it). */
function startsComponent(row: string, v: PiVocabulary): boolean {
  const t = row.trim()
  return v.spinner.test(t) || anyMatch(v.turnEnd, t) || v.errorRow.test(t) || anyMatch(v.hint, t)
}

/** Cut rows at runs of 2+ blank rows; then settle tool boxes and who said each plain group. */
export function groupsOf(rows: readonly string[], v: PiVocabulary = V): PiGroup[] {
  const raw: { kind: RawKind; rows: string[] }[] = []
  let cur: string[] = []
  let blanks = 0
  const flush = () => {
    while (cur.length && !cur[cur.length - 1].trim()) cur.pop()
    if (cur.length) raw.push({ kind: classify(cur, v), rows: cur })
    cur = []
  }
  for (const l of rows) {
    if (!l.trim() || isRule(l) || isDashedRule(l) || isBoxArt(l)) {
      blanks++
      // an error is one paragraph: the assistant's next words (after a retry) are another component
      if (blanks >= 2 || (cur.length && v.errorRow.test(cur[0].trim()))) flush()
      else if (cur.length) cur.push('')
      continue
    }
    blanks = 0
    if (cur.length && startsComponent(l, v)) flush()
    cur.push(l)
    // the loader and "Operation aborted" are one row: what follows is another component
    if (v.spinner.test(l.trim()) || anyMatch(v.turnEnd, l.trim())) flush()
  }
  flush()

  // A box's tail ("Took 0.0s") cut off from its header by 2+ blank rows inside the
  // output: the plain groups between belong to that box (output, not prose).
  for (let k = 0; k < raw.length; k++) {
    if (raw[k].kind !== 'toolTail') continue
    let j = k - 1
    while (j >= 0 && raw[j].kind === 'plain') j--
    const openBox = j >= 0 && raw[j].kind === 'tool' && !anyMatch(v.toolFooter, lastText(raw[j].rows))
    if (openBox || j < 0) {
      const from = Math.max(j, 0)
      const merged: string[] = []
      for (let m = from; m <= k; m++) merged.push(...(m > from ? [''] : []), ...raw[m].rows)
      raw.splice(from, k - from + 1, { kind: 'tool', rows: merged })
      k = from
    } else raw[k].kind = 'tool'
  }

  // Plain groups: a run alternates user / assistant. After the banner or a notice the run
  // opens with the user's prompt; after a tool box with the assistant's text; at the top
  // of a scrolled screen nothing says, and the assistant is the likelier (turns end on text).
  const out: PiGroup[] = []
  let next: 'user' | 'text' = 'text'
  for (const g of raw) {
    // pi's advice: dropped, and the user/assistant order goes on as if it were not there
    if (g.kind === 'hint') continue
    if (g.kind === 'plain') {
      out.push({ kind: next, rows: g.rows })
      next = next === 'user' ? 'text' : 'user'
      continue
    }
    if (g.kind === 'banner' || g.kind === 'notice' || g.kind === 'ended') next = 'user'
    else if (g.kind === 'tool') next = 'text'
    // pi retries a retryable error by itself: its next words are the assistant's; after
    // any other error the turn is over and the user speaks next
    else if (g.kind === 'error') next = v.retryable.test(g.rows.join(' ')) && !v.retryGaveUp.test(firstText(g.rows)) ? 'text' : 'user'
    out.push({ kind: g.kind as PiGroupKind, rows: g.rows })
  }
  return out
}

export function piLayoutOf(screen: string, v: PiVocabulary = V): PiLayout {
  const lines = screenLines(screen)
  const width = paneWidth(lines)
  let editorBottom = -1
  let editorTop = -1
  for (let i = lines.length - 1; i >= 0; i--) {
    if (isRule(lines[i])) {
      editorBottom = i
      break
    }
  }
  for (let i = editorBottom - 1; i >= 0 && i >= editorBottom - MAX_EDITOR_ROWS; i--) {
    if (isRule(lines[i]) || v.loaderRule.test(lines[i].trim())) {
      editorTop = i
      break
    }
  }
  const convEnd = editorTop >= 0 ? editorTop : editorBottom >= 0 ? editorBottom : lines.length
  const groups = groupsOf(lines.slice(0, convEnd), v)
  // the loader is a row above the editor (0.73) or drawn into its top rule (1.x)
  const loaderInRule = editorTop >= 0 && v.loaderRule.test(lines[editorTop].trim())
  const spinning = loaderInRule || groups.some((g) => g.kind === 'spinner')
  return { lines, width, editorTop, editorBottom, convEnd, groups: groups.filter((g) => g.kind !== 'spinner'), spinning }
}

/**
 * Was `line` soft-wrapped into `next`? The terminal wraps at word boundaries, `slack`
 * columns short of the pane's width: wrapped when next's first word would not have fitted.
 */

/**
 * A text group's logical lines: the one-column indent removed, soft wraps joined. A word
 * too long for the pane (an error's JSON) is cut at the last column and goes on at the
 * next row's start: a row that fills the pane to pi's right padding joins without a space.
 */
function proseLines(rows: readonly string[], width: number, v: PiVocabulary): string[] {
  const out: string[] = []
  let chunk: string[] = []
  const flush = () => {
    if (chunk.length) out.push(...unwrapProse(chunk, width, v.padding, (row) => row.replace(/^ /, '')))
    chunk = []
  }
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]
    const prev = i > 0 ? rows[i - 1] : ''
    if (row.trim() && prev.trim() && columns(prev) >= width - v.padding + 1 && !/\s/.test(row[1] ?? ' ') && chunk.length) {
      // hard break inside a word: glue onto the previous row before unwrapping
      chunk[chunk.length - 1] = prev + row.replace(/^ /, '')
      continue
    }
    chunk.push(row)
  }
  flush()
  return out
}

function toolStep(g: PiGroup, v: PiVocabulary): string {
  const first = firstText(g.rows)
  const last = lastText(g.rows)
  return last !== first && anyMatch(v.toolFooter, last) ? `${first} · ${last}` : first
}

function transcriptOf(layout: PiLayout): string[] {
  const out: string[] = []
  for (let k = layout.groups.length - 1; k >= 0 && out.length < TRANSCRIPT_LINES; k--) {
    const g = layout.groups[k]
    if (g.kind === 'banner') continue
    for (let i = g.rows.length - 1; i >= 0 && out.length < TRANSCRIPT_LINES; i--) {
      const t = g.rows[i].trim()
      if (t) out.push(t)
    }
  }
  return out.reverse()
}

export interface PiDialog {
  blocked: DialogReading
  /** the message rows under the title */
  context: string[]
  drive: DriveState
}

/**
 * An extension dialog (ctx.ui.confirm / select / input) drawn between the editor's
 * rules: a title row, message rows, then option rows with the → cursor (or the input
 * field), then its hint row.
 */
export function piDialogOf(layout: PiLayout, v: PiVocabulary = V): PiDialog | undefined {
  const { lines, editorTop, editorBottom } = layout
  if (editorTop < 0 || editorBottom - editorTop < 3) return undefined
  const rows = lines.slice(editorTop + 1, editorBottom)
  let hint = -1
  let input = false
  for (let k = rows.length - 1; k >= 0; k--) {
    if (v.dialog.selectHint.test(rows[k])) hint = k
    else if (v.dialog.inputHint.test(rows[k])) (hint = k), (input = true)
    if (hint >= 0) break
  }
  if (hint < 0) return undefined
  const texts: string[] = []
  const options: DialogReading['options'] = []
  let typed: string | undefined
  for (let k = 0; k < hint; k++) {
    const r = rows[k]
    if (!r.trim()) continue
    const field = input ? v.dialog.input.exec(r) : null
    if (field) {
      typed = field[1] ?? ''
      continue
    }
    const o = input ? null : v.dialog.option.exec(r)
    if (o && texts.length) {
      options.push({ index: 0, label: o[2].trim(), selected: !!o[1] })
      continue
    }
    if (options.length) return undefined // text after the options: not a dialog we know
    texts.push(r.trim())
  }
  if (!texts.length) return undefined
  if (input) {
    if (typed === undefined) return undefined
    options.push({ index: 0, label: v.dialog.inputLabel, selected: true, free_text: true })
    return { blocked: { question: texts[0], options }, context: texts.slice(1), drive: { kind: 'input', typed } }
  }
  if (!options.length) return undefined
  return { blocked: { question: texts[0], options }, context: texts.slice(1), drive: { kind: 'select' } }
}

/** Which of its blocks the turn policy reads as prompts, prose and tool steps (src/card/turn.ts). */
const PI_TURN_BLOCKS: BlockKinds = { prompt: ['user', 'notice', 'banner'], prose: ['text', 'error'], tool: ['tool'] }

/** Read a pi screen. A screen with neither pi's editor nor its banner degrades to the fallback. */
export function readPi(screen: string, agent: AgentInfo | undefined, v: PiVocabulary = V): ScreenReading {
  const layout = piLayoutOf(screen, v)
  const recognised = layout.editorBottom >= 0 || layout.groups.some((g) => g.kind === 'banner')
  if (!recognised) return unrecognised(screen, 'pi')

  const transcript = transcriptOf(layout)
  const base = { transcript: transcript.length ? transcript : undefined, parsed: true }

  const dialog = piDialogOf(layout, v)
  if (dialog) {
    const { blocked, context, drive } = dialog
    return {
      ...base,
      headline: blocked.question,
      detail: context.length ? context.join('\n') : blocked.question,
      blocked,
      drive,
      identity: context,
      rule: `pi.dialog.${drive.kind}`,
      decisions: {
        headline: { rule: `pi.dialog.${drive.kind}`, why: `an extension ${drive.kind} dialog above the editor: its title row` },
        detail: { rule: `pi.dialog.${drive.kind}`, why: context.length ? `${context.length} message rows under the title` : 'no message rows: the question' },
        'blocked.question': { rule: `pi.dialog.${drive.kind}`, why: 'the first row of the dialog' },
        'blocked.options': {
          rule: `pi.dialog.${drive.kind}`,
          why: drive.kind === 'input' ? 'a text input: one free-text option' : `${blocked.options.length} rows, "→" on the selected one`,
        },
      },
    }
  }

  // the current turn only: after the last prompt or notice (a stale answer is not this turn's)
  const turnView = turnByKind(
    layout.groups,
    PI_TURN_BLOCKS,
    (g) => proseLines(g.rows, layout.width, v),
    (g) => toolStep(g, v),
  )
  const turn = readTurn(turnView, agent, layout.spinning || agent?.agent_status === 'working', 'pi')
  const regions: Region[] = [{ name: 'conversation', from: 0, to: layout.convEnd }]
  if (layout.editorTop >= 0) regions.push({ name: 'editor', from: layout.editorTop, to: layout.editorBottom + 1 })
  return { ...base, ...turnFields(turn), regions }
}

/**
 * Every rule the pi grammar can name, in the order it tries them: what each
 * says is data (pi-rules.json, checked at load), the ids are the code's.
 */
export const piRules = grammarRules('pi', PI_RULES)

export const piGrammar: ScreenGrammar = {
  kinds: ['pi'],
  drives: V.drives,
  rules: piRules,
  read: (screen, agent) => readPi(screen, agent),
}
