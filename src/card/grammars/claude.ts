// Claude Code screen grammar: screen text → card fields. Pure.
// Layout (docs/reference/claude-code.md §8): conversation, then either the composer
// (rule / ❯ / rule / footer) or a live dialog that replaces it. The wording it keys on
// lives in claude-vocabulary.ts.
import type { AgentInfo } from '../../herdr/types'
import { TRANSCRIPT_LINES, type Decision, type DialogReading, type Region, type ScreenGrammar, type ScreenReading } from '../card'
import { grammarRules } from '../rules'
import { screenLines } from '../clean'
import { type Described, readDialog, type DialogRead } from '../dialog'
import CLAUDE_RULES from './claude-rules.json'
import { anyMatch, BlockCut, indentOf, isBoxArt, isDashedRule, isRule, paneWidth, stripFrame, wrapsInto } from '../lines'
import { claudeVocabulary as V, type ClaudeVocabulary } from './claude-vocabulary'
import { unrecognised } from './fallback'
import { type BlockKinds, readTurn, turnByKind, turnFields, unwrapProse } from '../turn'
import { DEFAULT_CELL, highlighted, styledRows, type StyledRow } from '../sgr'

interface Composer {
  /** row of the rule above the ❯ row */
  top: number
  /** row of the rule under the draft */
  bottom: number
}

/** The screen cut into its regions. */
export interface ClaudeLayout {
  lines: string[]
  width: number
  composer?: Composer
  dialog?: DialogRead
  /** the conversation is lines[0, convEnd) */
  convEnd: number
  /** the last rule's row when neither composer nor dialog is on screen (transcript view) */
  lastRule: number
  /** the top edge of a panel drawn over the composer, -1 if none */
  panel: number
}

type BlockKind = 'prose' | 'tool' | 'info' | 'status' | 'prompt' | 'local' | 'queued' | 'other'
interface Block {
  kind: BlockKind
  rows: string[]
}

function findComposer(lines: readonly string[], v: ClaudeVocabulary): Composer | undefined {
  // the LAST rule / ❯ / … / rule group; footer rows may follow it
  for (let top = lines.length - 2; top >= 0; top--) {
    if (!isRule(lines[top]) || !v.promptLine.test(lines[top + 1])) continue
    for (let b = top + 2; b < lines.length && b <= top + 12; b++) {
      if (isRule(lines[b])) return { top, bottom: b }
    }
  }
  return undefined
}

export function layoutOf(screen: string, v: ClaudeVocabulary = V): ClaudeLayout {
  const lines = screenLines(screen)
  const width = paneWidth(lines)
  const composer = findComposer(lines, v)
  const from = composer ? composer.bottom + 1 : 0
  let lastRule = -1
  for (let i = lines.length - 1; i >= 0; i--) {
    if (isRule(lines[i])) {
      lastRule = i
      break
    }
  }
  const read =
    readDialog(
      lines,
      from,
      width,
      v.dialog,
      v.liveBreaker,
      once(() => styledRows(screen)),
    ) ?? (composer ? undefined : (keyNotice(lines, lastRule, v) ?? hintlessMenu(lines, lastRule, v)))
  const dialog = read && asForm(lines, read, v)
  // a panel drawn over the composer (/status, /fast, /model's picker): "▔▔▔" on its top edge
  let panel = -1
  for (let i = lines.length - 1; i >= from; i--) {
    if (v.panelEdge.test(lines[i].trim())) {
      panel = i
      break
    }
  }
  let convEnd = lines.length
  if (composer) convEnd = composer.top
  else if (dialog) convEnd = panel >= 0 && panel < dialog.questionStart ? Math.min(panel, Math.max(dialog.top, 0)) : dialog.top
  else if (lastRule >= 0 && lines.length - lastRule <= 4)
    convEnd = lastRule // transcript view footer
  else if (panel >= 0) convEnd = panel
  return { lines, width, composer, dialog, convEnd, lastRule, panel }
}

/** f's value, computed on the first call only. */
function once<T>(f: () => T): () => T {
  let done = false
  let value: T
  return () => {
    if (!done) {
      value = f()
      done = true
    }
    return value
  }
}

/** A row of drawing rather than text (the welcome art, a rule): few letters among its glyphs. */
function isArt(line: string): boolean {
  const t = line.trim()
  if (!t || isRule(line) || isDashedRule(line) || isBoxArt(line)) return !!t
  const letters = (t.match(/[\p{L}\p{N}]/gu) ?? []).length
  return letters / t.replace(/\s/g, '').length < 0.3
}

/** Where the section that ends at `end` starts: after the last rule, else after the art above it. */
function sectionTop(lines: readonly string[], end: number, lastRule: number): number {
  if (lastRule >= 0 && lastRule < end) return lastRule
  let top = -1
  for (let i = end - 1; i >= 0; i--) {
    if (isArt(lines[i])) {
      top = i
      break
    }
  }
  return top
}

/**
 * A notice that waits for a key and offers no options ("Auto mode can't check actions in
 * this session" … "Enter to stay in auto mode · shift+Tab to leave … · Esc to cancel";
 * "Security notes:" … "Press Enter to continue"): the section under the last rule (or the
 * art) whose last row is such a key-hint row. Its first row is the question; the options
 * are none (the keys are in the hint row, kept as context).
 */
function keyNotice(lines: readonly string[], lastRule: number, v: ClaudeVocabulary): DialogRead | undefined {
  let last = lines.length - 1
  while (last >= 0 && !lines[last].trim()) last--
  if (last < 0 || !v.keyHintRow.test(lines[last])) return undefined
  // a panel over the composer (/resume, /usage) closes with keys too, but is no question
  if (lines.some((l) => v.panelEdge.test(l.trim()))) return undefined
  const top = sectionTop(lines, last, lastRule)
  const rows: number[] = []
  for (let i = top + 1; i <= last; i++) if (lines[i].trim()) rows.push(i)
  if (rows.length < 2 || rows.length > 16) return undefined
  if (rows.some((i) => v.panelEdge.test(lines[i].trim()) || v.dialog.cursor.test(lines[i]))) return undefined
  const question = lines[rows[0]].trim()
  const context = rows.slice(1).map((i) => lines[i].trim())
  return { blocked: { question, options: [] }, top, questionStart: rows[0], context, questionFrom: 'title', optionsFrom: 'keys', optionRows: [] }
}

/**
 * A cursor menu with no hint row under it (the first-run theme picker): a ❯ row indented
 * under the art, its label after an optional current-choice mark (✔), and rows at the
 * label's column above and below it. The question is the nearest paragraph above that is
 * not an aside ("To change this later, run /theme"): a guess the rule id names.
 */
function hintlessMenu(lines: readonly string[], lastRule: number, v: ClaudeVocabulary): DialogRead | undefined {
  let cursorRow = -1
  for (let i = lines.length - 1; i >= 0; i--) {
    if (v.dialog.cursor.test(lines[i]) && indentOf(lines[i]) > 0) {
      cursorRow = i
      break
    }
  }
  // a numbered row whose list does not run 1..n is a cut or foreign list, not a menu
  if (cursorRow < 0 || v.dialog.option.test(lines[cursorRow])) return undefined
  const after = lines[cursorRow].replace(v.dialog.cursor, '')
  const mark = /^[✔✓]\s+/.exec(after)?.[0] ?? ''
  const col = lines[cursorRow].length - after.length + mark.length
  const isSibling = (l: string) => !!l.trim() && indentOf(l) === col && !isArt(l)
  let first = cursorRow
  while (first - 1 >= 0 && isSibling(lines[first - 1])) first--
  let lastRow = cursorRow
  while (lastRow + 1 < lines.length && isSibling(lines[lastRow + 1])) lastRow++
  if (lastRow === first) return undefined
  const top = sectionTop(lines, first, lastRule)
  const options = []
  const optionRows: number[] = []
  for (let i = first; i <= lastRow; i++) {
    const label = (i === cursorRow ? after.slice(mark.length) : lines[i]).trim().replace(/^[✔✓]\s+/, '')
    options.push({ index: 0, label, selected: i === cursorRow })
    optionRows.push(i)
  }
  // the paragraphs between the section's top and the options, nearest first
  const paragraphs: [number, number][] = []
  for (let e = first - 1; e > top; ) {
    if (!lines[e].trim()) {
      e--
      continue
    }
    let b = e
    while (b - 1 > top && lines[b - 1].trim()) b--
    paragraphs.push([b, e])
    e = b - 1
  }
  const text = ([b, e]: [number, number]) =>
    lines
      .slice(b, e + 1)
      .map((l) => l.trim())
      .filter((t) => t && !anyMatch(v.menuAside, t))
      .join(' ')
  // a paragraph that asks ("… one you trust?"), else one with a question sentence in it,
  // else (a guess) the nearest one that is not an aside
  let questionFrom: DialogRead['questionFrom'] = 'question'
  let found = paragraphs.find((p) => v.question.test(text(p)))
  let question = found ? text(found) : ''
  if (!found && v.dialog.questionSentence) {
    found = paragraphs.find((p) => v.dialog.questionSentence!.test(text(p)))
    if (found) {
      question = v.dialog.questionSentence.exec(text(found))![1].trim()
      questionFrom = 'sentence'
    }
  }
  if (!found) {
    found = paragraphs.find((p) => text(p) !== '')
    if (!found) return undefined
    question = text(found)
    questionFrom = 'above-menu'
  }
  const questionStart = found[0]
  const context = lines
    .slice(top + 1, questionStart)
    .map((l) => l.trim())
    .filter(Boolean)
  return { blocked: { question, options }, top, questionStart, context, questionFrom, optionsFrom: 'cursor-menu', optionRows }
}

/**
 * A form rather than a menu (an MCP server's elicitation: "* Priority: ▸ not set", then the
 * buttons "Accept    Decline" side by side): the ❯ moves between fields and buttons, so its
 * rows are no answers the card can offer. Known by a row of buttons (short labels three or
 * more spaces apart) under the question: no options, the fields and buttons kept as context.
 */
function asForm(lines: readonly string[], read: DialogRead, v: ClaudeVocabulary): DialogRead {
  if (read.optionsFrom !== 'cursor-menu') return read
  const rows: string[] = []
  let buttons = false
  for (let i = read.questionStart + 1; i < lines.length; i++) {
    const t = lines[i].replace(v.dialog.cursor, '').trim()
    if (!t || anyMatch(v.dialog.hint, lines[i])) continue
    if (v.formButtons.test(t)) buttons = true
    rows.push(t)
  }
  if (!buttons) return read
  return { ...read, blocked: { question: read.blocked.question, options: [] }, context: [...read.context, ...rows], optionsFrom: 'form', optionRows: [] }
}

/** The permission mode from the footer rows under the composer. */
export function modeOf(layout: ClaudeLayout, v: ClaudeVocabulary = V): string | undefined {
  return modeDecision(layout, v).mode
}

/** The permission mode and the rule that decided it. */
export function modeDecision(layout: ClaudeLayout, v: ClaudeVocabulary = V): { mode?: string } & Decision {
  const { lines, composer } = layout
  if (!composer) {
    const why = layout.dialog ? 'a dialog replaces the footer' : 'no composer on screen (transcript view or cut screen)'
    return { rule: 'claude.mode.hidden', why }
  }
  const end = Math.min(lines.length, composer.bottom + 8)
  let footer = false
  for (let i = composer.bottom + 1; i < end; i++) {
    const l = lines[i]
    if (!l.trim()) continue
    footer = true
    const m = v.modeRow.exec(l)
    if (!m) continue
    const label = m[1].trim()
    for (const known of v.modes) {
      if (known.label.test(label)) return { mode: known.mode, rule: 'claude.mode.label', why: `footer row ${i}: "${label}"` }
    }
    return { mode: label.toLowerCase(), rule: 'claude.mode.label-raw', why: `footer row ${i}: unknown label "${label}", reported lowercased` }
  }
  if (footer) {
    // builds that print no label for the default mode show their usual hints there; any
    // other row in its place is a transient hint ("Press Ctrl-C again to exit"): unknown
    for (let i = composer.bottom + 1; i < end; i++) {
      if (anyMatch(v.defaultFooter, lines[i])) {
        return { mode: v.defaultMode, rule: 'claude.mode.no-label', why: `footer row ${i} is the unlabelled default footer ("${lines[i].trim()}")` }
      }
    }
    const first =
      lines
        .slice(composer.bottom + 1, end)
        .find((l) => l.trim())
        ?.trim() ?? ''
    return { rule: 'claude.mode.transient', why: `the footer shows a transient hint instead of a mode ("${first}")` }
  }
  return { rule: 'claude.mode.no-footer', why: 'nothing under the composer' }
}

/** An echoed prompt that ran a local slash command: "❯ /compact" with its "⎿" output under it. */
function isLocalCommand(layout: ClaudeLayout, row: number, v: ClaudeVocabulary): boolean {
  const text = layout.lines[row].replace(v.promptLine, '')
  return v.slashCommand.test(text) && row + 1 < layout.convEnd && v.resultGutter.test(layout.lines[row + 1])
}

/**
 * A message typed while the agent works: an echoed prompt with the "⎿ Queued · …" hint right
 * under it. It waits; the turn still running is the one before it.
 */
function isQueuedPrompt(layout: ClaudeLayout, row: number, v: ClaudeVocabulary): boolean {
  for (let i = row + 1; i < layout.convEnd; i++) {
    const l = layout.lines[i]
    if (v.queuedHint.test(l)) return true
    // a wrapped row of this message (each queued message has its own hint under it)
    if (l.trim() && indentOf(l) > 0 && !v.resultGutter.test(l)) continue
    return false
  }
  return false
}

/** An echoed prompt that starts no turn: a local slash command, or a queued message. */
function startsNoTurn(layout: ClaudeLayout, row: number, v: ClaudeVocabulary): boolean {
  return isLocalCommand(layout, row, v) || isQueuedPrompt(layout, row, v)
}

function isToolCall(text: string, v: ClaudeVocabulary): boolean {
  return anyMatch(v.toolCall, text)
}

/** Cut the conversation rows into blocks: prose, tool rows, notices, status rows, prompts. */
export function blocksOf(layout: ClaudeLayout, v: ClaudeVocabulary = V, start = 0): Block[] {
  const { lines, convEnd } = layout
  const cut = new BlockCut<BlockKind>()
  for (let i = start; i < convEnd; i++) {
    const l = lines[i]
    if (cut.blankRow(l)) continue
    const wasBlank = cut.afterBlank
    if (anyMatch(v.banner, l) || isRule(l) || isDashedRule(l) || isBoxArt(l) || anyMatch(v.chrome, l) || indentOf(l) >= v.rightAligned) {
      if (cut.cur && cut.cur.kind === 'prose' && isDashedRule(l)) continue
      if (anyMatch(v.banner, l) || isRule(l)) cut.end()
      continue
    }
    if (v.bullet.test(l)) {
      const text = l.replace(v.bullet, '')
      let kind: BlockKind = 'prose'
      if (isToolCall(text, v)) kind = 'tool'
      else if (anyMatch(v.infoRow, text)) kind = 'info'
      // prose never has a result gutter right under it; a notice or tool row does
      else if (i + 1 < convEnd && v.resultGutter.test(lines[i + 1]) && !anyMatch(v.proseResult, lines[i + 1])) kind = 'info'
      cut.open(kind, text)
      continue
    }
    if (v.promptLine.test(l)) {
      const text = l.replace(v.promptLine, '')
      // a local slash command's echo ("❯ /compact" + "⎿ output") does not start a turn
      cut.open(isLocalCommand(layout, i, v) ? 'local' : isQueuedPrompt(layout, i, v) ? 'queued' : 'prompt', text)
      continue
    }
    if (v.spinner.test(l) || v.statusRow.test(l)) {
      cut.open('status', l)
      continue
    }
    if (anyMatch(v.proseResult, l) && cut.cur?.kind === 'prose') {
      cut.open('info', l)
      continue
    }
    if (v.resultGutter.test(l)) {
      if (cut.cur && cut.cur.kind !== 'prose' && cut.cur.kind !== 'prompt') cut.cur.rows.push(l)
      // a result at the very top whose row scrolled off: whose it was is unknown
      else if (!cut.cur && cut.blocks.length === 0 && start === 0) cut.open('other', l)
      else cut.open('tool', l)
      continue
    }
    const indent = indentOf(l)
    const text = l.trim()
    // a tool row, or one whose blinking bullet is off in this frame (a result gutter under it)
    const gutterNext = i + 1 < convEnd && v.resultGutter.test(lines[i + 1])
    // (not the last row of prose wrapped into it: an interrupted answer's "⎿ Interrupted" follows that)
    const continuesProse = cut.cur?.kind === 'prose' && !wasBlank && wrapsInto(lines[i - 1], l, layout.width, v.wrapSlack)
    if (indent > 0 && indent <= 4 && !continuesProse && (isToolCall(text, v) || anyMatch(v.toolRow, text) || (indent === 2 && gutterNext))) {
      cut.open('tool', text)
      continue
    }
    if (indent === 2 && !cut.cur && cut.blocks.length === 0 && start === 0) {
      // the first rows on screen continue a prose block whose bullet row scrolled off
      cut.open('prose', '')
      cut.cur!.rows = [l]
      continue
    }
    if (indent > 0 && cut.cur) {
      if (cut.cur.kind === 'prose') {
        if (wasBlank) cut.cur.rows.push('')
        cut.cur.rows.push(l)
        continue
      }
      if (cut.cur.kind === 'prompt' && wasBlank) {
        cut.open('other', l)
        continue
      }
      if (!wasBlank || indent > 2 || cut.cur.kind === 'prompt' || cut.cur.kind === 'local') {
        cut.cur.rows.push(l)
        continue
      }
    }
    cut.open('other', l)
  }
  return cut.blocks
}

/** The prose block's logical lines: bullet and indent removed, soft wraps joined. Claude
 *  Code wraps prose a couple of columns short of the pane (vocabulary wrapSlack). */
function proseLines(rows: readonly string[], width: number, v: ClaudeVocabulary): string[] {
  // the bullet row is "● text": the same two columns as the continuation rows' indent
  const onScreen = rows.map((r, k) => (k === 0 && !/^\s/.test(r) ? '● ' + r : r))
  const lines = unwrapProse(onScreen, width, v.wrapSlack, (row) =>
    row
      .replace(v.bullet, '')
      .replace(/^ {1,2}/, '')
      .trimEnd(),
  )
  // a quote's bar ("▎ ") is drawn on each of its rows: none of its words; a table's row
  // ("│ alpha │ the first … │") is its cells' words
  return lines.map((l) => {
    if (v.quoteBar.test(l)) return l.replace(v.quoteBar, '').replaceAll(v.quoteBarInside, ' ')
    return l.startsWith('│') ? tableCells(l) : l
  })
}

/** A markdown table's row as Claude Code draws it ("│ alpha │ the first … │"): its cells' words. */
function tableCells(row: string): string {
  return row
    .split('│')
    .map((c) => c.trim())
    .filter(Boolean)
    .join(' · ')
}

function toolStep(b: Block, v: ClaudeVocabulary): string {
  const first = b.rows[0].replace(v.tree, '').replace(v.toolRowHint, '').trim()
  const result = b.rows
    .slice(1)
    .map((r) => r.replace(v.tree, '').trim())
    .find((r) => r && !v.resultHint.test(r))
  return result ? `${first} · ${result}` : first
}

/** Recent readable rows (conversation and dialog), without chrome. */
function transcriptOf(layout: ClaudeLayout, v: ClaudeVocabulary): string[] {
  const { lines, dialog, composer, convEnd } = layout
  const end = dialog ? lines.length : composer ? composer.top : convEnd
  const out: string[] = []
  for (let i = end - 1; i >= 0 && out.length < TRANSCRIPT_LINES; i--) {
    const l = lines[i]
    if (!l.trim() || anyMatch(v.banner, l) || isRule(l) || isDashedRule(l) || isBoxArt(l)) continue
    if (anyMatch(v.chrome, l) || (v.spinner.test(l) && !v.statusRow.test(l))) continue
    if (dialog && i > dialog.top && anyMatch(v.dialog.hint, l)) continue
    const t = stripFrame(
      l
        .replace(v.bullet, '')
        .replace(v.tree, '')
        .replace(v.dialog.beside ?? /$^/, ''),
    )
    if (t) out.push(/^\s*│.*│\s*$/.test(l) ? tableCells(l) : t)
  }
  return out.reverse()
}

/**
 * The tabs of a dialog with several questions, from the tab row above the question:
 * their titles, and which one is shown. The tab row marks the shown one by colour only
 * (drawn on a background): with the screen's colours that tab is known. From plain text it
 * is a guess — the first unanswered (☐) tab, which holds while the questions are answered
 * in order but not after moving between tabs with the arrows. A multi-select tab turns ☒
 * once a box is ticked, so then the guess is the last answered tab before the first ☐ …
 * unless it is the first tab. Absent on the review tab and for a single question.
 */
function questionsOf(
  layout: ClaudeLayout,
  v: ClaudeVocabulary,
  styled: StyledRow[] | undefined,
): { questions: NonNullable<DialogReading['questions']>; decision: Decision } | undefined {
  const { lines, dialog } = layout
  if (!dialog) return undefined
  for (let i = dialog.questionStart - 1; i >= Math.max(0, dialog.questionStart - 4); i--) {
    const row = v.tabRow.exec(lines[i])
    if (!row) continue
    const at = lines[i].indexOf(row[1])
    const tabs = [...row[1].matchAll(v.tab)].map((m) => ({ answered: m[1] !== '☐', title: m[2].trim(), col: at + (m.index ?? 0) }))
    const asked = tabs.filter((t) => !v.reviewTab.test(t.title))
    if (asked.length < 2) return undefined
    const titles = asked.map((t) => t.title)
    // with colours: the tab drawn unlike the others is the one shown
    const srow = styled?.[i]
    if (srow && srow.text.trimEnd() === lines[i]) {
      const found = tabs.map((t) => ({ cell: srow.cells[t.col + 2] ?? DEFAULT_CELL, base: srow.cells[0] ?? DEFAULT_CELL }))
      const k = highlighted(found)
      if (k >= 0) {
        if (v.reviewTab.test(tabs[k].title)) return undefined
        const current = asked.indexOf(tabs[k]) + 1
        return {
          questions: { titles, current },
          decision: { rule: 'claude.dialog.tabs-highlight', why: `tab row ${i}: "${tabs[k].title}" is drawn highlighted, tab ${current} of ${asked.length}` },
        }
      }
    }
    const ticking = dialog.blocked.multi_select === true && dialog.blocked.options.some((o) => o.checked)
    let current = asked.findIndex((t) => !t.answered) + 1
    if (current === 0) {
      if (!ticking) return undefined // every tab answered: the review is shown
      current = asked.length + 1
    }
    // a multi-select tab being answered is already ☒: it is the one before the first ☐
    if (ticking && current > 1) current--
    return {
      questions: { titles, current },
      decision: {
        rule: 'claude.dialog.tabs-guess',
        why: `tab row ${i} without colours: GUESS tab ${current} of ${asked.length}, the first unanswered one (wrong if the user moved between tabs)`,
      },
    }
  }
  return undefined
}

const OPTIONS_RULE = {
  numbered: 'claude.dialog.options-numbered',
  'cursor-menu': 'claude.dialog.options-cursor-menu',
  keys: 'claude.dialog.options-keys',
  form: 'claude.dialog.options-form',
} as const

const FREE_TEXT_FROM = {
  wording: 'its wording',
  layout: 'the last row above the rule that more options follow',
  cursor: 'a text cursor (an inverse-video cell) in its row',
} as const

/**
 * An option row that carries a text cursor (an inverse-video cell after its number, as
 * Claude Code draws an input: "Type something." focused, the "Yes, and …" of Tab to amend)
 * is a text input, whatever its words: free_text. Only a screen with colours shows it.
 */
function withTextCursor(
  layout: ClaudeLayout,
  styled: StyledRow[] | undefined,
): { blocked: DialogReading; freeText?: { index: number; from: keyof typeof FREE_TEXT_FROM } } {
  const { blocked, optionRows, freeText } = layout.dialog!
  if (!styled) return { blocked, freeText }
  let found: { index: number; from: 'cursor' } | undefined
  const options = blocked.options.map((o, k) => {
    const row = optionRows[k]
    const srow = styled[row]
    if (o.free_text || row === undefined || !srow || srow.text.trimEnd() !== layout.lines[row]) return o
    const label = srow.text.indexOf(o.label.slice(0, 4))
    if (label < 0 || !srow.cells.slice(label).some((c) => c.inverse)) return o
    found ??= { index: o.index, from: 'cursor' }
    return { ...o, free_text: true as const }
  })
  return found ? { blocked: { ...blocked, options }, freeText: found } : { blocked, freeText }
}

/** The regions of a Claude Code screen, for explain. */
function regionsOf(layout: ClaudeLayout, turnRow: number): Region[] {
  const out: Region[] = [{ name: 'conversation', from: 0, to: layout.convEnd }]
  if (turnRow > 0) out.push({ name: 'current turn', from: turnRow, to: layout.convEnd })
  if (layout.composer) {
    out.push({ name: 'composer', from: layout.composer.top, to: layout.composer.bottom + 1 })
    if (layout.composer.bottom + 1 < layout.lines.length) out.push({ name: 'footer', from: layout.composer.bottom + 1, to: layout.lines.length })
  }
  if (layout.dialog) out.push({ name: 'dialog', from: Math.max(0, layout.dialog.top), to: layout.lines.length })
  else if (layout.panel >= 0) out.push({ name: 'panel', from: layout.panel, to: layout.lines.length })
  return out
}

const QUESTION_RULE = {
  question: ['claude.dialog.question', 'the paragraph ending in "?" above the options'],
  sentence: ['claude.dialog.question-sentence', 'no paragraph ending in "?": the question sentence that opens one'],
  title: ['claude.dialog.question-title', 'no "?" paragraph: the section\'s title'],
  'selected-option': ['claude.dialog.question-selected', 'no question or title: the selected option'],
  'above-menu': ['claude.dialog.question-above-menu', 'a menu without hint row: GUESS, the nearest paragraph above it that is not an aside'],
} as const

const DESCRIBED = {
  column: ['claude.dialog.option-description-column', 'the text at a column aligned across the option rows'],
  separator: ['claude.dialog.option-description-separator', 'the text after " · ", drawn dim'],
} as const

function descriptionDecision(described: Described, blocked: DialogReading): Decision {
  const [rule, what] = DESCRIBED[described]
  const n = blocked.options.filter((o) => o.description).length
  return { rule, why: `${n} of ${blocked.options.length} options carry a description: ${what}` }
}

/** Which of its blocks the turn policy reads as prompts, prose and tool steps (src/card/turn.ts). */
const CLAUDE_TURN_BLOCKS: BlockKinds = { prompt: ['prompt'], prose: ['prose'], tool: ['tool'] }

/** Read a Claude Code screen. Anything unrecognised degrades to the fallback reading. */
export function readClaude(screen: string, agent: AgentInfo | undefined, v: ClaudeVocabulary = V): ScreenReading {
  const layout = layoutOf(screen, v)
  const mode = modeDecision(layout, v)
  // only the current turn matters: start at the last echoed prompt (a stale answer
  // above it is not this turn's); the prompt row itself opens the first block
  let turnRow = 0
  if (!layout.dialog) {
    for (let i = layout.convEnd - 1; i >= 0; i--) {
      if (v.promptLine.test(layout.lines[i]) && !startsNoTurn(layout, i, v)) {
        turnRow = i
        break
      }
    }
  }
  // a numbered menu while herdr does not say blocked (/model's picker) is not a question
  // the agent waits on: the card reads the conversation above it
  const menu = !!layout.dialog && !!agent && agent.agent_status !== 'blocked'
  if (menu) {
    for (let i = layout.convEnd - 1; i >= 0; i--) {
      if (v.promptLine.test(layout.lines[i]) && !startsNoTurn(layout, i, v)) {
        turnRow = i
        break
      }
    }
  }
  const blocks = layout.dialog && !menu ? [] : blocksOf(layout, v, turnRow)
  const recognised = !!layout.composer || !!layout.dialog || blocks.some((b) => b.kind !== 'other') || layout.lastRule >= 0 || layout.panel >= 0
  if (!recognised) return unrecognised(screen, 'claude')

  const transcript = transcriptOf(layout, v)
  const regions = regionsOf(layout, turnRow)
  const base = { transcript: transcript.length ? transcript : undefined, parsed: true, regions }
  const modeDecided = { rule: mode.rule, why: mode.why }
  const withMode = (r: ScreenReading): ScreenReading => {
    const out = { ...r, decisions: { ...r.decisions, permission_mode: modeDecided } }
    return mode.mode !== undefined ? { ...out, permission_mode: mode.mode } : out
  }

  if (layout.dialog && !menu) {
    const { context, submitFocused, questionFrom, optionsFrom, described, explained } = layout.dialog
    const styled = styledRows(screen)
    const { blocked, freeText } = withTextCursor(layout, styled)
    const numbered = blocked.options.some((o) => o.index > 0)
    const tabs = questionsOf(layout, v, styled)
    const questions = tabs?.questions
    const [qRule, qWhy] = QUESTION_RULE[questionFrom]
    const question = { rule: qRule, why: `${qWhy} (row ${layout.dialog.questionStart})` }
    const picked = blocked.options.findIndex((o) => o.selected)
    return withMode({
      ...base,
      headline: blocked.question,
      detail: context.length ? context.join('\n') : blocked.question,
      blocked: questions ? { ...blocked, questions } : blocked,
      identity: context.filter((r) => !/[☐☒]/.test(r)),
      drive: { kind: blocked.multi_select ? 'multi-select' : numbered ? 'numbered' : 'menu', submitFocused },
      rule: qRule,
      decisions: {
        headline: question,
        detail: explained
          ? { rule: 'claude.dialog.title-explanation', why: `${explained} rows under the one-row title explain it (they do not continue it)` }
          : {
              rule: 'claude.dialog.context',
              why: context.length ? `${context.length} rows between the dialog's top and its question` : 'no context rows: the question',
            },
        'blocked.question': question,
        'blocked.options': {
          rule: OPTIONS_RULE[optionsFrom],
          why: `${blocked.options.length} options, cursor on ${picked >= 0 ? `"${blocked.options[picked].label}"` : 'none'}${
            freeText ? `; option ${freeText.index} takes typed text (${FREE_TEXT_FROM[freeText.from]})` : ''
          }`,
        },
        ...(described ? { 'blocked.options.description': descriptionDecision(described, blocked) } : {}),
        ...(tabs ? { 'blocked.questions': tabs.decision } : {}),
      },
    })
  }

  // herdr says blocked but no whole dialog is readable (cut screen, new layout): the
  // question row, if one is under the last rule, is still the best headline
  if (agent?.agent_status === 'blocked' && layout.lastRule >= 0) {
    for (let i = layout.lines.length - 1; i > layout.lastRule; i--) {
      const t = layout.lines[i].trim()
      if (v.question.test(t) && !v.promptLine.test(t)) {
        const d = { rule: 'claude.blocked.question-row', why: `herdr says blocked, no whole dialog; row ${i} ends in "?"` }
        return withMode({ ...base, headline: t, detail: t, rule: d.rule, decisions: { headline: d, detail: d } })
      }
    }
  }

  // the API is being retried and nothing came after: that is what the agent is doing
  const last = blocks[blocks.length - 1]
  const retry = last?.kind === 'status' ? v.retryRow.map((r) => r.exec(last.rows[0])).find(Boolean) : undefined
  if (retry) {
    const d = { rule: 'claude.turn.api-retry', why: `the turn's last row is an API retry: "${retry[1]}"` }
    return withMode({ ...base, headline: retry[1], detail: retry[1], rule: d.rule, decisions: { headline: d, detail: d } })
  }

  // an error the CLI printed as a ● message and wrapped itself, narrower than the pane
  // ("● Request timed out. If the API is slow … set API_TIMEOUT_MS" / "above 4000."): all of it
  if (last?.kind === 'prose' && anyMatch(v.errorNotice, last.rows[0])) {
    const notice = last.rows
      .map((r) => r.trim())
      .filter(Boolean)
      .join(' ')
    const d = { rule: 'claude.turn.error-notice', why: `the turn ends with an error message of the CLI (${last.rows.length} rows): all of it` }
    return withMode({ ...base, headline: notice, detail: notice, rule: d.rule, decisions: { headline: d, detail: d } })
  }

  // the CLI answered the prompt itself: a "⎿" notice right under it and nothing else this
  // turn ("Prompt is too long · …", "Interrupted · …"): that notice, its wrapped rows joined
  const prompt = blocks.findLastIndex((b) => b.kind === 'prompt')
  const answer = prompt >= 0 && prompt === blocks.length - 2 ? blocks[prompt + 1] : undefined
  if (answer && answer.kind === 'tool' && v.resultGutter.test(answer.rows[0])) {
    const notice = answer.rows
      .map((r) => r.replace(v.tree, '').trim())
      .filter(Boolean)
      .join(' ')
    const d = { rule: 'claude.turn.prompt-notice', why: `the prompt's only answer is a "⎿" notice of the CLI (${answer.rows.length} rows)` }
    return withMode({ ...base, headline: notice, detail: notice, rule: d.rule, decisions: { headline: d, detail: d } })
  }

  // the current turn only: after the last echoed prompt (a stale answer is not this turn's)
  const turnView = turnByKind(
    blocks,
    CLAUDE_TURN_BLOCKS,
    (b) => proseLines(b.rows, layout.width, v),
    (b) => toolStep(b, v),
  )
  const turn = readTurn(turnView, agent, agent?.agent_status === 'working', 'claude')
  return withMode({ ...base, ...turnFields(turn) })
}

/**
 * Every rule the Claude Code grammar can name, in the order it tries them: what
 * each says is data (claude-rules.json, checked at load), the ids are the code's.
 */
export const claudeRules = grammarRules('claude', CLAUDE_RULES)

export const claudeGrammar: ScreenGrammar = {
  kinds: ['claude', 'claude-code'],
  rules: claudeRules,
  digitSelects: true,
  drives: V.drives,
  // with colours: the shown tab of a several-question form is marked by colour only
  wantsAnsi: true,
  read: (screen, agent) => readClaude(screen, agent),
  permissionMode: (screen) => modeOf(layoutOf(screen)),
  dialog: (screen): DialogReading | undefined => {
    const layout = layoutOf(screen)
    return layout.dialog && withTextCursor(layout, styledRows(screen)).blocked
  },
}
