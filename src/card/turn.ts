// What a card says about the current turn: the same policy for every agent
// kind, whatever its screen looks like. A grammar cuts its screen into blocks
// (prompts, prose, tool steps) and says how to read one; this decides.
import type { AgentInfo } from '../herdr/types'
import type { ScreenReading } from './card'
import { columns, indentOf, wrapsInto } from './lines'

const DETAIL_MAX_LINES = 40
const DETAIL_MAX_CHARS = 4000

export interface TurnOf<B> {
  /** the screen's blocks, oldest first */
  blocks: readonly B[]
  /** a user prompt: the current turn starts after the last one */
  isPrompt(b: B): boolean
  isProse(b: B): boolean
  isTool(b: B): boolean
  /** a prose block's lines, soft wraps joined */
  proseOf(b: B): string[]
  /** a tool block as one short step ("Bash(ls) · 3 files") */
  stepOf(b: B): string
}

/** Which block kinds are prompts, prose and tool steps, for a grammar whose blocks name what they are. */
export interface BlockKinds {
  prompt: readonly string[]
  prose: readonly string[]
  tool: readonly string[]
}

/** The TurnOf of blocks that name what they are in `kind` (every grammar's). */
export function turnByKind<B extends { kind: string }>(
  blocks: readonly B[],
  kinds: BlockKinds,
  proseOf: (b: B) => string[],
  stepOf: (b: B) => string,
): TurnOf<B> {
  return {
    blocks,
    isPrompt: (b) => kinds.prompt.includes(b.kind),
    isProse: (b) => kinds.prose.includes(b.kind),
    isTool: (b) => kinds.tool.includes(b.kind),
    proseOf,
    stepOf,
  }
}

export interface TurnReading {
  headline: string
  detail: string
  /** the id of the rule that decided (src/card/rules.ts turnRules) */
  rule: string
  /** the evidence, for `gothalo explain` */
  why: string
}

/**
 * The current turn only (a stale answer from an earlier turn is not news):
 * - its last prose: the headline is its last line, the detail the prose (plus the
 *   running tool step when a working agent has moved on to a tool);
 * - only tool steps so far: a working agent's task title (else the step), the step as detail;
 * - nothing yet: no headline (the card then falls back to the task title).
 */
export function readTurn<B>(t: TurnOf<B>, agent: AgentInfo | undefined, working: boolean, ns: string): TurnReading {
  let start = 0
  for (let k = t.blocks.length - 1; k >= 0; k--) {
    if (t.isPrompt(t.blocks[k])) {
      start = k + 1
      break
    }
  }
  let lastProse = -1
  let lastTool = -1
  for (let k = t.blocks.length - 1; k >= start && (lastProse < 0 || lastTool < 0); k--) {
    if (lastProse < 0 && t.isProse(t.blocks[k])) lastProse = k
    if (lastTool < 0 && t.isTool(t.blocks[k])) lastTool = k
  }
  const title = titleOf(agent)
  const step = lastTool >= 0 ? t.stepOf(t.blocks[lastTool]) : ''
  if (lastProse >= 0) {
    const prose = t.proseOf(t.blocks[lastProse])
    const headline =
      prose
        .filter((l) => l.trim())
        .pop()
        ?.trim() ?? ''
    let detail = capDetail(prose)
    if (working && lastTool > lastProse) detail += '\n\n' + step
    const of = `block ${lastProse + 1 - start} of ${t.blocks.length - start} in the turn`
    return { headline, detail, rule: `${ns}.turn.last-prose`, why: `last prose block of the current turn (${of})` }
  }
  if (step) {
    const titled = working && !!title
    return {
      headline: titled ? title : step,
      detail: step,
      rule: titled ? `${ns}.turn.tool-title` : `${ns}.turn.tool-step`,
      why: titled ? `working, no prose yet this turn; last tool step: ${step}` : `no prose this turn; last tool step`,
    }
  }
  const why = start > 0 ? 'nothing after the last prompt' : 'no prose or tool step on screen'
  return { headline: '', detail: '', rule: `${ns}.turn.nothing`, why }
}

/** A turn reading as the card fields it decides: headline and detail, both under its rule. */
export function turnFields(turn: TurnReading): Pick<ScreenReading, 'headline' | 'detail' | 'rule' | 'decisions'> {
  const decided = { rule: turn.rule, why: turn.why }
  return { headline: turn.headline, detail: turn.detail, rule: turn.rule, decisions: { headline: decided, detail: decided } }
}

// a row that ends a sentence: . ! ? : … (closing quotes or brackets after it)
const SENTENCE_END = /[.!?:…]["'’”)\]]*$/
// a row that carries the sentence on: a lowercase word or continuing punctuation
const CONTINUES = /^(?:\p{Ll}|[,;)\]}—–])/u

/**
 * Does `next` continue the sentence `line` left open? Only for a row that fills at least half
 * the pane (short rows are code, headings or list labels), not ending a sentence, followed at
 * the same indent by a row that opens in lowercase or with continuing punctuation.
 */
export function continuesSentence(line: string, next: string, width: number): boolean {
  const t = line.trimEnd()
  if (columns(t) * 2 < width || SENTENCE_END.test(t)) return false
  if (indentOf(next) > indentOf(line) + 2) return false
  return CONTINUES.test(next.trimStart())
}

/** Detail is the tail of what was said: at most 40 lines and 4000 characters. */
export function capDetail(lines: string[]): string {
  const kept = lines.length > DETAIL_MAX_LINES ? lines.slice(-DETAIL_MAX_LINES) : lines
  const s = kept
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
  return s.length > DETAIL_MAX_CHARS ? '…' + s.slice(-DETAIL_MAX_CHARS) : s
}

/** herdr's task title for the pane (the OSC title without its spinner), clean. */
export function titleOf(agent: AgentInfo | undefined): string {
  const t = agent?.terminal_title_stripped ?? agent?.title ?? ''
  return typeof t === 'string' ? t.replace(/[\u0000-\u001f\u007f]/g, '').trim() : ''
}

/**
 * A prose block's logical lines: each row dedented, soft wraps joined, runs of
 * blank rows kept as one paragraph break, none at the end. A row is a soft wrap when the
 * next row's first word would not have fitted after it, or (an agent wraps some rows
 * several columns short of the edge) when it ends no sentence and the next carries it on.
 */
export function unwrapProse(rows: readonly string[], width: number, slack: number, dedent: (row: string) => string): string[] {
  const out: string[] = []
  let prev = ''
  for (const row of rows) {
    if (!row.trim()) {
      if (out.length && out[out.length - 1] !== '') out.push('')
      prev = ''
      continue
    }
    const text = dedent(row)
    if (prev && out.length && out[out.length - 1] !== '' && (wrapsInto(prev, row, width, slack) || continuesSentence(prev, row, width))) {
      out[out.length - 1] += ' ' + text.trim()
    } else out.push(text)
    prev = row
  }
  while (out.length && !out[out.length - 1].trim()) out.pop()
  return out
}
