// Reads a live numbered dialog (permission prompt, question form, plan review …) off a
// screen by its STRUCTURE: a question paragraph, then options "N. label" numbered 1..n
// with a cursor glyph on one of them and/or hint rows under them. Agent-specific
// glyphs and wording come in through DialogVocabulary. Pure.
import type { DialogReading, Option } from './card'
import { anyMatch, indentOf, isDashedRule, isRule, wrapsInto } from './lines'
import type { StyledRow } from './sgr'

export interface DialogVocabulary {
  /** the cursor glyph at the start of a row (❯, ›) */
  cursor: RegExp
  /** an option row: groups (indent)(cursor?)(number)(label) */
  option: RegExp
  /** hint rows that close a live form ("Esc to cancel", "Enter to select") */
  hint: RegExp[]
  /** hint rows under one option, never part of its label */
  optionHint: RegExp[]
  /** multi-select "[ ] label" / "[✔] label": group 1 is the mark */
  checkbox: RegExp
  /** header chips above a question ("☐ Database", "← ☒ Colors ✔ Submit →") */
  chip: RegExp
  /** labels of options that ask the user to type ("Type something", "Tell Claude what to change") */
  freeText?: RegExp[]
  /** a form whose numbered options run on below a ─ rule ("5. Chat about this"): the last one
   *  above the rule is the own-answer row, whatever its label says (an answer typed into it
   *  replaces "Type something.") */
  freeTextBeforeRule?: boolean
  /** the unnumbered submit row of a multi-select form with the cursor on it ("❯    Next") */
  submitFocused?: RegExp
  /** unnumbered rows that are options too ("Submit"): groups (cursor?)(label); index 0 */
  unnumbered?: RegExp
  /** a box drawn beside the options (a preview pane): cut from option labels */
  beside?: RegExp
  /** a quote bar in front of question/context rows, removed */
  bar?: RegExp
  /** a question sentence inside a longer paragraph: group 1 is the question */
  questionSentence?: RegExp
  /** a line that is a question (default: ends in "?") */
  question?: RegExp
  /** list rows ("● question / → answer" on a review page): never a question sentence */
  listItem?: RegExp
  /** a row that opens a section like a ─ rule does (a panel's "▔▔▔" top edge) */
  sectionEdge?: RegExp
  /**
   * Options carry descriptions the agent draws beside the choice, read by layout
   * (src/card/describe.ts): `column`, a column of text aligned across the option rows (a
   * picker); `separator`, text after this mark drawn in another colour than the label (" · ").
   */
  describe?: { column?: boolean; separator?: string; currentMark?: RegExp }
  /** a dialog's title row is one row: the rows under it that do not continue it explain it (context) */
  titleRow?: boolean
}

export interface DialogRead {
  blocked: DialogReading
  /** row of the dialog's top rule (or first context row) */
  top: number
  /** row where the question paragraph starts */
  questionStart: number
  /** rows between the top and the question: tool kind, command, file, preview */
  context: string[]
  /** multi-select: the cursor is on the submit row, not on an option */
  submitFocused?: boolean
  /** how the question was found: a paragraph ending in "?", the section's title, or the selected option */
  questionFrom: 'question' | 'sentence' | 'title' | 'selected-option' | 'above-menu'
  /** numbered options "N. label", a cursor-only menu (index 0), or none: a notice closed by keys */
  optionsFrom: 'numbered' | 'cursor-menu' | 'keys' | 'form'
  /** the own-answer row, and how it was known: its wording, or its place above the rule */
  freeText?: { index: number; from: 'wording' | 'layout' }
  /** the screen row of each option (same order as blocked.options) */
  optionRows: number[]
  /** how the options' descriptions were told from their labels, when any has one */
  described?: Described
  /** rows under a one-row title that explain it (they went to context, not the question) */
  explained?: number
}

// how far apart two consecutive options may be (descriptions, a rule between them)
const MAX_OPTION_GAP = 8
// how many rows may follow the last option in a live form (descriptions, hints)
const MAX_TAIL_ROWS = 10
const MAX_CONTEXT_ROWS = 10
// without a rule above the options, look this far up for the question
const MAX_SECTION_ROWS = 30

interface OptionRow {
  row: number
  n: number
  cursor: boolean
  text: string
}

export type Described = 'column' | 'separator'

/**
 * The column a picker's descriptions start at: on two or more option rows the text after
 * the label resumes, past a gap of two or more spaces, at the same column. -1 if none.
 */
function descriptionColumn(group: readonly OptionRow[], lines: readonly string[], vocab: DialogVocabulary): number {
  const cols: number[] = []
  for (const o of group) {
    const line = vocab.beside ? lines[o.row].replace(vocab.beside, '') : lines[o.row]
    const at = line.indexOf(o.text)
    if (at < 0) continue
    const gap = / {2,}(?=\S)/.exec(line.slice(at).trimEnd())
    if (gap) cols.push(at + gap.index + gap[0].length)
  }
  if (cols.length < 2 || cols.some((c) => c !== cols[0])) return -1
  return cols[0]
}

/**
 * "Yes, and switch to auto mode · auto mode handles …": the text after the separator is a
 * description when it is drawn in another colour than the label (dim); without colours the
 * separator alone says it.
 */
function splitAtSeparator(label: string, sep: string, row: string, styledRow: () => StyledRow | undefined): [string, string] | undefined {
  const k = label.indexOf(sep)
  if (k <= 0) return undefined
  const srow = styledRow()
  if (srow && srow.text.trimEnd() === row) {
    const start = row.indexOf(label.slice(0, Math.min(k, 8)))
    const mark = start >= 0 ? row.indexOf(sep, start) : -1
    // on the option's first row: the mark's colour against the label's
    if (mark >= 0 && mark + 1 < srow.cells.length && srow.cells[mark + 1].fg === srow.cells[start].fg) return undefined
  }
  const description = label.slice(k + sep.length).trim()
  return description ? [label.slice(0, k).trim(), description] : undefined
}

function optionAt(line: string, vocab: DialogVocabulary): OptionRow | undefined {
  const m = vocab.option.exec(line)
  if (!m) return undefined
  return { row: -1, n: Number(m[3]), cursor: !!m[2], text: m[4].trim() }
}

/**
 * The dialog in lines[from..], if one is live there. `liveBreaker` rows (bullets,
 * echoed prompts at column 0) after the options mean the list is old conversation.
 */
export function readDialog(
  lines: readonly string[],
  from: number,
  width: number,
  vocab: DialogVocabulary,
  liveBreaker: RegExp,
  /** the screen's rows with their colours, asked for only when a dialog needs them */
  styled?: () => readonly StyledRow[] | undefined,
): DialogRead | undefined {
  return readNumbered(lines, from, width, vocab, liveBreaker, styled) ?? readUnnumbered(lines, from, width, vocab, liveBreaker)
}

function readNumbered(
  lines: readonly string[],
  from: number,
  width: number,
  vocab: DialogVocabulary,
  liveBreaker: RegExp,
  styled?: () => readonly StyledRow[] | undefined,
): DialogRead | undefined {
  let lastRow = -1
  for (let i = lines.length - 1; i >= from; i--) {
    if (vocab.option.test(lines[i])) {
      lastRow = i
      break
    }
  }
  if (lastRow < 0) return undefined
  const last = optionAt(lines[lastRow], vocab)!
  last.row = lastRow
  if (last.n < 1) return undefined

  // walk up collecting n-1 … 1; anything else numbered in between means no dialog
  const group: OptionRow[] = [last]
  let expected = last.n - 1
  let prevRow = lastRow
  for (let i = lastRow - 1; i >= from && expected > 0; i--) {
    if (prevRow - i > MAX_OPTION_GAP) return undefined
    const o = optionAt(lines[i], vocab)
    if (!o) continue
    if (o.n !== expected) return undefined
    o.row = i
    group.unshift(o)
    expected--
    prevRow = i
  }
  if (expected !== 0) return undefined

  // liveness: the form is the last thing on screen, with a cursor or a hint row
  let hinted = false
  let tail = 0
  for (let i = lastRow + 1; i < lines.length; i++) {
    const l = lines[i]
    if (!l.trim()) continue
    // an unnumbered option with the cursor on it ("❯ Chat about this") is the form's, not conversation
    if (liveBreaker.test(l) && !vocab.unnumbered?.test(l)) return undefined
    if (anyMatch(vocab.hint, l)) hinted = true
    if (++tail > MAX_TAIL_ROWS) return undefined
  }
  // (a cursor on an unnumbered row among the options, a multi-select's submit row, counts)
  const cursorAmong = () => lines.slice(group[0].row, lastRow + 3).some((l) => vocab.cursor.test(l) && !!l.replace(vocab.cursor, '').trim())
  if (!hinted && !group.some((o) => o.cursor) && !cursorAmong()) return undefined

  const cutBeside = (t: string) => (vocab.beside ? t.replace(vocab.beside, '') : t).trim()
  // a picker's descriptions stand in a column aligned across the option rows
  const descCol = vocab.describe?.column ? descriptionColumn(group, lines, vocab) : -1
  let described: Described | undefined
  const options: Option[] = group.map((o, k) => {
    const stop = k + 1 < group.length ? group[k + 1].row : lines.length
    let label = cutBeside(o.text)
    let description: string | undefined
    if (descCol >= 0) {
      const at = lines[o.row].indexOf(o.text)
      if (at >= 0 && at + o.text.length > descCol) {
        description = cutBeside(lines[o.row].slice(descCol))
        label = o.text.slice(0, descCol - at).trim()
      }
    }
    let prev = lines[o.row]
    for (let i = o.row + 1; i < stop; i++) {
      const l = lines[i]
      if (!l.trim() || isRule(l) || isDashedRule(l) || anyMatch(vocab.hint, l) || anyMatch(vocab.optionHint, l)) break
      // a row in the description column continues the description
      if (description !== undefined && indentOf(l) === descCol) {
        description += ' ' + cutBeside(l)
        prev = l
        continue
      }
      if (!wrapsInto(prev, l, width)) break // a description row, not a wrapped label
      label += ' ' + cutBeside(l)
      prev = l
    }
    if (description === undefined && vocab.describe?.separator) {
      const split = splitAtSeparator(label, vocab.describe.separator, lines[o.row], () => styled?.()?.[o.row])
      if (split) [label, description] = split
    }
    if (vocab.describe?.currentMark) label = label.replace(vocab.describe.currentMark, '')
    const opt: Option = description ? { index: o.n, label, description, selected: o.cursor } : { index: o.n, label, selected: o.cursor }
    if (description) described ??= descCol >= 0 ? 'column' : 'separator'
    const box = vocab.checkbox.exec(label)
    if (box) {
      opt.label = label.slice(box[0].length)
      opt.checked = box[1] !== ' '
    }
    if (vocab.freeText && anyMatch(vocab.freeText, opt.label)) opt.free_text = true
    return opt
  })
  // unnumbered option rows among or after the numbered ones ("Submit"), in screen order
  const rows = group.map((o) => o.row)
  if (vocab.unnumbered) {
    for (let i = group[0].row + 1; i < lines.length; i++) {
      if (rows.includes(i)) continue
      const m = vocab.unnumbered.exec(lines[i])
      if (!m) continue
      const at = rows.filter((r) => r < i).length
      rows.splice(at, 0, i)
      options.splice(at, 0, { index: 0, label: m[2].trim(), selected: !!m[1] })
    }
    // with the cursor on an unnumbered row, a numbered row's "❯" only marks the preview shown
    if (options.some((o) => o.index === 0 && o.selected)) for (const o of options) if (o.index > 0) o.selected = false
  }

  // the own-answer row by its place: the last option above a ─ rule that more options follow
  let freeText: DialogRead['freeText']
  const worded = options.findIndex((o) => o.free_text)
  if (worded >= 0) freeText = { index: options[worded].index, from: 'wording' }
  else if (vocab.freeTextBeforeRule) {
    for (let k = 0; k + 1 < group.length; k++) {
      if (!lines.slice(group[k].row + 1, group[k + 1].row).some(isRule)) continue
      const opt = options.find((o) => o.index === group[k].n)
      if (opt) {
        opt.free_text = true
        freeText = { index: opt.index, from: 'layout' }
      }
      break
    }
  }
  const read = withQuestion(lines, from, width, group[0].row, options, vocab, 'numbered', rows)
  if (freeText) read.freeText = freeText
  if (described) read.described = described
  if (options.some((o) => o.checked !== undefined)) read.blocked.multi_select = true
  if (vocab.submitFocused) {
    for (let i = group[0].row; i <= lastRow; i++) if (vocab.submitFocused.test(lines[i])) read.submitFocused = true
  }
  return read
}

/** Cursor-only menus ("❯ No, exit" / "Yes, I trust this folder"): options index 0. */
function readUnnumbered(lines: readonly string[], from: number, width: number, vocab: DialogVocabulary, liveBreaker: RegExp): DialogRead | undefined {
  // needs a hint row below the cursor: otherwise a "❯ text" row is just a prompt
  let hintRow = -1
  for (let i = lines.length - 1; i >= from; i--) {
    if (anyMatch(vocab.hint, lines[i])) {
      hintRow = i
      break
    }
  }
  if (hintRow < 0) return undefined
  let cursorRow = -1
  for (let i = hintRow - 1; i >= from && i >= hintRow - MAX_TAIL_ROWS; i--) {
    if (vocab.cursor.test(lines[i]) && lines[i].replace(vocab.cursor, '').trim()) {
      cursorRow = i
      break
    }
  }
  // a numbered row whose list does not run 1..n is a cut or foreign list, not a menu
  if (cursorRow < 0 || vocab.option.test(lines[cursorRow])) return undefined
  for (let i = cursorRow + 1; i < lines.length; i++) if (liveBreaker.test(lines[i])) return undefined

  const cursorLine = lines[cursorRow]
  const col = cursorLine.length - cursorLine.replace(vocab.cursor, '').length
  const isSibling = (l: string) => !!l.trim() && indentOf(l) === col && !anyMatch(vocab.hint, l) && !isRule(l) && !isDashedRule(l)
  let first = cursorRow
  while (first - 1 >= from && isSibling(lines[first - 1])) first--
  let lastRow = cursorRow
  while (lastRow + 1 < lines.length && isSibling(lines[lastRow + 1])) lastRow++
  const options: Option[] = []
  for (let i = first; i <= lastRow; i++) {
    options.push({ index: 0, label: lines[i].replace(vocab.cursor, '').trim(), selected: i === cursorRow })
  }
  const rows: number[] = []
  for (let i = first; i <= lastRow; i++) rows.push(i)
  return withQuestion(lines, from, width, first, options, vocab, 'cursor-menu', rows)
}

/** Find the question above the first option, the dialog's top rule and its context rows. */
function withQuestion(
  lines: readonly string[],
  from: number,
  width: number,
  firstOptionRow: number,
  options: Option[],
  vocab: DialogVocabulary,
  optionsFrom: DialogRead['optionsFrom'],
  optionRows: number[],
): DialogRead {
  const isBreak = (l: string) => !l.trim() || isRule(l) || isDashedRule(l)
  const paragraphAbove = (end: number): [number, number] | undefined => {
    let e = end
    while (e >= from && !lines[e].trim()) e--
    if (e < from || isRule(lines[e]) || isDashedRule(lines[e])) return undefined
    let s = e
    while (s - 1 >= from && !isBreak(lines[s - 1]) && !vocab.chip.test(lines[s - 1].trimStart().slice(0, 1))) s--
    return [s, e]
  }
  const unbar = (l: string) => (vocab.bar ? l.replace(vocab.bar, '') : l).trim()
  const isQuestion = (l: string) => (vocab.question ?? /\?$/).test(unbar(l))
  const join = (s: number, e: number) =>
    lines
      .slice(s, e + 1)
      .map(unbar)
      .join(' ')

  // the section the options sit in starts at the nearest ─ rule above them
  let sectionRule = -1
  for (let i = firstOptionRow - 1; i >= from; i--) {
    if (isRule(lines[i]) || vocab.sectionEdge?.test(lines[i].trim())) {
      sectionRule = i
      break
    }
  }
  const floor = sectionRule >= 0 ? sectionRule + 1 : Math.max(from, firstOptionRow - MAX_SECTION_ROWS)

  let question = ''
  let questionFrom: DialogRead['questionFrom'] = 'question'
  let questionStart = -1
  let titleEnd = -1
  let explained = 0
  // the paragraphs of the section above the options, nearest first
  const paragraphs: [number, number][] = []
  for (let end = firstOptionRow - 1; end >= floor; ) {
    const p = paragraphAbove(end)
    if (!p) {
      end--
      continue
    }
    if (p[0] < floor) break
    paragraphs.push(p)
    end = p[0] - 1
  }
  // the nearest paragraph ending in "?"; else one that asks in its first sentence and goes
  // on explaining (folder trust), never a list row of a review page
  const asked = paragraphs.find((p) => isQuestion(lines[p[1]]))
  if (asked) {
    question = join(asked[0], asked[1])
    questionStart = asked[0]
  } else if (vocab.questionSentence) {
    for (const [s, e] of paragraphs) {
      const m = vocab.listItem?.test(lines[s]) ? null : vocab.questionSentence.exec(join(s, e))
      if (!m) continue
      question = m[1].trim()
      questionFrom = 'sentence'
      questionStart = s
      break
    }
  }
  if (!question) {
    // no "?" line (e.g. the bypass-mode warning): the section's title is the question
    for (let i = floor; i < firstOptionRow; i++) {
      // chip rows ("←  ☒ Packages  ☒ Output  ✔ Submit  →") are tabs, not the title
      if (isBreak(lines[i]) || vocab.chip.test(lines[i].trimStart().slice(0, 1))) continue
      let e = i
      while (e + 1 < firstOptionRow && !isBreak(lines[e + 1])) e++
      // a one-row title with rows under it that do not continue it: those explain it (context)
      if (vocab.titleRow && e > i && !wrapsInto(lines[i], lines[i + 1], width)) {
        explained = e - i
        e = i
      }
      question = join(i, e).replace(vocab.chip, '').trim()
      questionFrom = 'title'
      questionStart = i
      titleEnd = e
      break
    }
  }
  if (!question) {
    question = options.find((o) => o.selected)?.label ?? ''
    questionFrom = 'selected-option'
    questionStart = firstOptionRow
  }

  // context: for a titled dialog the rows under the title; else the rows between the
  // dialog's top rule and the question (skipping empty sections, as in the plan review)
  let top = sectionRule
  let ctxFrom: number
  let ctxTo: number
  if (titleEnd >= 0) {
    ctxFrom = titleEnd + 1
    ctxTo = firstOptionRow
  } else {
    top = -1
    for (let i = questionStart - 1; i >= from; i--) {
      if (!isRule(lines[i])) continue
      if (lines.slice(i + 1, questionStart).some((l) => !isBreak(l))) {
        top = i
        break
      }
    }
    ctxFrom = top >= 0 ? top + 1 : Math.max(from, questionStart - MAX_CONTEXT_ROWS)
    ctxTo = questionStart
  }
  const context: string[] = []
  for (let i = ctxFrom; i < ctxTo && context.length < MAX_CONTEXT_ROWS; i++) {
    const l = lines[i]
    if (isBreak(l)) continue
    const t = unbar(l).replace(vocab.chip, '').trim()
    if (t) context.push(t)
  }
  if (top < 0) top = Math.min(ctxFrom, questionStart)
  const read: DialogRead = { blocked: { question, options }, top, questionStart, context, questionFrom, optionsFrom, optionRows }
  if (explained) read.explained = explained
  return read
}
