// pi's session JSONL (format v3; pi 0.73.1 and 1.6.0 in the fixtures) → entry drafts.
// One line = one tree entry {type, id, parentId, timestamp, …}; chat lives in
// `message` entries whose message.role is user | assistant | toolResult (…).
// Pure: no clock, no files. Never throws.
import type { Draft, ToolCall } from '../../entry'
import { countJsonLineTapped, isBlankLine, planJsonLine, planJsonValue, unplaced, type LineCounter, type LineNormalizer } from '../../jsonl/normalizer'
import {
  basename,
  blocksText,
  capBody,
  capOutput,
  cappedResult,
  inputSummary,
  isObj,
  isoTime,
  oneLine,
  previewDiff,
  str,
  stripSingleFileHeaders,
  withPreviewDiff,
  type Obj,
} from '../../tool-summary'
import { piDiffToUnified } from './diff'

/**
 * Entry types that carry session metadata, not conversation: dropped. `context_edit` (pi 1.x)
 * only hides or replaces an earlier entry in what the MODEL is sent next; pi's own UI and
 * history keep the target as it was, so the transcript does too.
 */
const METADATA_TYPES = new Set(['session', 'model_change', 'thinking_level_change', 'custom', 'label', 'session_info', 'context_edit'])

/** Tools whose `path` argument names the file they work on. */
const FILE_TOOLS = new Set(['read', 'edit', 'write', 'ls', 'find', 'grep'])

// ── the one decision: which entries a line yields ───────────────────────────
//
// Deciding and building are split so the index can count a line's entries
// without building them (no diffs, summaries, capping): planLine() is the only
// place that decides; normalizePiLine builds each slot it returns, countPiLine
// returns how many there are. A slot that fails to build becomes one parsed:false
// draft in its place (never a different number of drafts), so the two cannot
// disagree (test/transcript/kinds/pi/count.test.ts).

/** One entry a record yields, decided but not built. `k` is its block index (the id suffix). */
type Slot =
  /** a message/thinking entry with this text (capped to the body limit when built) */
  | { as: 'text'; k: number; role: Draft['role']; kind: 'message' | 'thinking'; text: string }
  /** a fixed short text, built as is */
  | { as: 'fixed'; k: number; role: Draft['role']; kind: 'attachment'; text: string }
  | { as: 'tool_call'; k: number; id: string; name: string; args: unknown }
  | { as: 'tool_result'; k: 0; msg: Obj }
  /** a user-run `!cmd`: the call (k 0) and, once it ended, its result (k 1) */
  | { as: 'bash_call'; k: 0; msg: Obj }
  | { as: 'bash_result'; k: 1; msg: Obj }

/** A record without a string type cannot be placed. */
const planTyped = (rec: Obj): Slot[] | undefined => (typeof rec.type === 'string' ? planRecord(rec, rec.type) : undefined)

/** undefined ⇒ the line is one parsed:false entry (not JSON, or a record that cannot be placed). */
const planLine = (line: string) => planJsonLine(line, planTyped)

export const normalizePiLine: LineNormalizer = (line, offset) => {
  if (isBlankLine(line)) return []
  const plan = planLine(line)
  return plan ? built(plan, offset) : [unplaced(line, offset)]
}
// The same drafts for a line a page read parsed from its bytes (undefined: the text decides).
normalizePiLine.fromJson = (value, offset) => {
  const plan = planJsonValue(value, planTyped)
  return plan && built(plan, offset)
}

function built(plan: { rec: Obj; slots: Slot[] }, offset: number): Draft[] {
  if (plan.slots.length === 0) return []
  const env = envelope(plan.rec, offset)
  return plan.slots.map((slot) => buildSlot(slot, env))
}

/**
 * How many drafts normalizePiLine(line) returns, without building them: what the
 * index needs. Same plan, so always equal (test/transcript/kinds/pi/count.test.ts).
 */
export const countPiLine: LineCounter = (line) => {
  if (isBlankLine(line)) return 0
  const plan = planLine(line)
  return plan ? plan.slots.length : 1
}

/** countPiLine that also hands the parsed record to `onRecord` (the index pass folds usage from the same parse). */
export function countPiLineTapped(line: string, onRecord: (rec: Obj) => void): number {
  return isBlankLine(line) ? 0 : countJsonLineTapped(line, planTyped, onRecord)
}

/** undefined = this record cannot be placed (the caller passes the line through as parsed:false). */
function planRecord(rec: Obj, type: string): Slot[] | undefined {
  if (METADATA_TYPES.has(type)) return []
  switch (type) {
    case 'message':
      return isObj(rec.message) ? planMessage(rec.message) : undefined
    case 'compaction':
    case 'branch_summary': {
      const summary = str(rec.summary)
      if (summary === undefined) return undefined
      const label = type === 'compaction' ? 'Context compacted' : 'Branch summary'
      return [{ as: 'text', k: 0, role: 'system', kind: 'message', text: `${label}\n\n${summary}` }]
    }
    case 'custom_message':
      return shownContent(rec)
    default:
      return undefined
  }
}

function planMessage(msg: Obj): Slot[] | undefined {
  switch (msg.role) {
    case 'user':
      return planUser(msg.content)
    case 'assistant':
      return planAssistant(msg)
    case 'toolResult':
      return [{ as: 'tool_result', k: 0, msg }]
    case 'bashExecution':
      // Still running (nothing recorded about its end): the call alone.
      return msg.exitCode === undefined && msg.cancelled !== true && msg.output === undefined
        ? [{ as: 'bash_call', k: 0, msg }]
        : [
            { as: 'bash_call', k: 0, msg },
            { as: 'bash_result', k: 1, msg },
          ]
    case 'custom':
    case 'hookMessage':
      return shownContent(msg)
    case 'system':
      // pi 1.x: the system prompt's sections and the tool loadout (the first request of a
      // session, then each change as a patch); pi's UI does not show it, nor does the transcript
      return []
    default:
      return undefined
  }
}

/** An extension's message: a system note unless it asked not to be shown. */
function shownContent(o: Obj): Slot[] {
  if (o.display === false) return []
  const text = contentText(o.content)
  return text ? [{ as: 'text', k: 0, role: 'system', kind: 'message', text }] : []
}

function planUser(content: unknown): Slot[] | undefined {
  if (typeof content === 'string') return [{ as: 'text', k: 0, role: 'user', kind: 'message', text: content }]
  if (!Array.isArray(content)) return undefined
  const out: Slot[] = []
  for (let k = 0; k < content.length; k++) {
    const b = content[k]
    if (!isObj(b)) continue
    if (b.type === 'text' && typeof b.text === 'string') {
      out.push({ as: 'text', k, role: 'user', kind: 'message', text: b.text })
    } else if (b.type === 'image') {
      out.push({ as: 'fixed', k, role: 'user', kind: 'attachment', text: '[image]' })
    }
  }
  return out
}

function planAssistant(msg: Obj): Slot[] | undefined {
  const content = msg.content
  if (!Array.isArray(content)) return undefined
  const out: Slot[] = []
  for (let k = 0; k < content.length; k++) {
    const b = content[k]
    if (!isObj(b)) continue
    if (b.type === 'text' && typeof b.text === 'string' && hasText(b.text)) {
      out.push({ as: 'text', k, role: 'assistant', kind: 'message', text: b.text })
    } else if (b.type === 'thinking' && typeof b.thinking === 'string' && hasText(b.thinking)) {
      out.push({ as: 'text', k, role: 'assistant', kind: 'thinking', text: b.thinking })
    } else if (b.type === 'toolCall' && typeof b.id === 'string' && typeof b.name === 'string') {
      out.push({ as: 'tool_call', k, id: b.id, name: b.name, args: b.arguments })
    }
  }
  // A failed or aborted turn says why only in errorMessage.
  const stop = msg.stopReason
  if ((stop === 'error' || stop === 'aborted') && (typeof msg.errorMessage === 'string' || stop === 'aborted')) {
    out.push({ as: 'text', k: content.length, role: 'system', kind: 'message', text: str(msg.errorMessage) ?? 'Aborted' })
  }
  return out
}

/** Whether `s` has a character String.prototype.trim keeps (without trim's copy). */
function hasText(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c > 0x20 && c < 0xa0) return true
    if (!isTrimmedSpace(c)) return true
  }
  return false
}

/** WhiteSpace and LineTerminator as trim() removes them. */
function isTrimmedSpace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    c === 0x20 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  )
}

// ── building a planned slot ─────────────────────────────────────────────────

type Head = Pick<Draft, 'parent_id' | 'ts'>

interface Envelope {
  /** `<entry id>#k`; v1 files have no ids: the line's offset is the entry's identity */
  id(k: number): string
  head: Head
}

function envelope(rec: Obj, offset: number): Envelope {
  const base = str(rec.id) ?? `line@${offset}`
  const head: Head = {}
  const parent = str(rec.parentId)
  if (parent) head.parent_id = parent
  const ts = isoTime(rec.timestamp) ?? (isObj(rec.message) ? isoTime(rec.message.timestamp) : undefined)
  if (ts) head.ts = ts
  return { id: (k) => `${base}#${k}`, head }
}

/** Builds one slot; a slot whose build fails is still one entry (parsed:false), so the count holds. */
function buildSlot(slot: Slot, env: Envelope): Draft {
  const { head } = env
  const id = env.id(slot.k)
  try {
    switch (slot.as) {
      case 'text':
        return textDraft(id, head, slot.role, slot.kind, capBody(slot.text))
      case 'fixed':
        return textDraft(id, head, slot.role, slot.kind, slot.text)
      case 'tool_call':
        return { id, ...head, role: 'assistant', kind: 'tool_call', tool: toolCall(slot.id, slot.name, slot.args), parsed: true }
      case 'tool_result':
        return toolResult(slot.msg, id, head)
      case 'bash_call':
        return bashCall(slot.msg, id, head)
      case 'bash_result':
        return bashResult(slot.msg, env.id(0), id, head)
    }
  } catch {
    // fall through: unreachable for any input seen so far, kept so a count never lies
  }
  const role = slot.as === 'tool_call' ? 'assistant' : slot.as === 'text' || slot.as === 'fixed' ? slot.role : 'user'
  return { id, ...head, role, kind: 'message', text: '[unreadable block]', parsed: false }
}

/**
 * A message-like draft, keys in the contract's order (id, parent_id, ts, role, …).
 * Built by assignment rather than by spreading `head`: this runs for every line
 * a page reads, and the spread showed in the profile.
 */
function textDraft(id: string, head: Head, role: Draft['role'], kind: Draft['kind'], text: string): Draft {
  const d = { id } as Draft
  if (head.parent_id !== undefined) d.parent_id = head.parent_id
  if (head.ts !== undefined) d.ts = head.ts
  d.role = role
  d.kind = kind
  d.text = text
  d.parsed = true
  return d
}

function toolCall(callId: string, name: string, args: unknown): ToolCall {
  const tool: ToolCall = { id: callId, name, title: name }
  const a = isObj(args) ? args : {}
  const path = str(a.path) ?? str(a.file_path)
  if (name === 'bash' && typeof a.command === 'string') {
    tool.command = a.command
    tool.input_summary = oneLine(a.command)
  } else if (FILE_TOOLS.has(name) && path) {
    tool.file = basename(path)
    tool.input_summary = oneLine(path)
  } else {
    tool.input_summary = inputSummary(args ?? {})
  }
  if (!tool.file) delete tool.file
  return withPreviewDiff(tool, requestedDiff(name, a))
}

/** The diff the call asks for, from its arguments (edit: edits[] or the older oldText/newText; write: content). */
function requestedDiff(name: string, a: Obj): string | undefined {
  if (name === 'edit') {
    const edits: unknown[] = Array.isArray(a.edits) ? a.edits : [a]
    const parts: string[] = []
    for (const e of edits) {
      if (!isObj(e) || typeof e.oldText !== 'string' || typeof e.newText !== 'string') continue
      const d = previewDiff(e.oldText, e.newText)
      if (d) parts.push(d)
    }
    return parts.length ? parts.join('\n') : undefined
  }
  if (name === 'write' && typeof a.content === 'string') return previewDiff('', a.content) || undefined
  return undefined
}

function toolResult(msg: Obj, id: string, head: Head): Draft {
  const forId = str(msg.toolCallId) ?? ''
  const details = isObj(msg.details) ? msg.details : {}
  // details.patch (newer pi) is already unified; details.diff is pi's display format.
  const unified =
    typeof details.patch === 'string' && details.patch !== ''
      ? stripSingleFileHeaders(details.patch)
      : typeof details.diff === 'string'
        ? piDiffToUnified(details.diff)
        : undefined
  const result = cappedResult(forId, msg.isError !== true, contentText(msg.content), unified)
  return { id, ...head, role: 'user', kind: 'tool_result', result, parsed: forId !== '' }
}

/** A `!cmd` the user ran in the TUI: a call and its result, paired by the call's entry id. */
function bashCall(msg: Obj, callId: string, head: Head): Draft {
  const command = str(msg.command) ?? ''
  return {
    id: callId,
    ...head,
    role: 'user',
    kind: 'tool_call',
    tool: { id: callId, name: 'bash', title: 'bash', command, input_summary: oneLine(command) },
    parsed: true,
  }
}

function bashResult(msg: Obj, callId: string, id: string, head: Head): Draft {
  const ok = (msg.exitCode === 0 || msg.exitCode === undefined) && msg.cancelled !== true
  const result: NonNullable<Draft['result']> = { for_id: callId, ok }
  if (typeof msg.output === 'string' && msg.output !== '') {
    const c = capOutput(msg.output)
    result.output_summary = c.text
    if (c.cut || msg.truncated === true) result.truncated = true
  }
  return { id, ...head, role: 'user', kind: 'tool_result', result, parsed: true }
}

/** Text of a string or (text|image)[] content; images as [image]. */
function contentText(content: unknown): string {
  return blocksText(content, (b) => (b.type === 'image' ? '[image]' : undefined))
}

// ---- resolution helpers (pure) ----

/**
 * pi's per-project session directory name (getDefaultSessionDirPath): one leading
 * separator stripped, every / \ : replaced by -, wrapped in --.
 */
export function encodePiCwd(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`
}

/** The cwd a session file's header (its first line) records; undefined when it is not a header. */
export function piHeaderCwd(firstLine: string): string | undefined {
  try {
    const h: unknown = JSON.parse(firstLine)
    if (isObj(h) && h.type === 'session' && typeof h.cwd === 'string') return h.cwd
  } catch {
    // not a header
  }
  return undefined
}

/** `<dir>/<ISO time>_<session id>.jsonl` → the session id; undefined for another name. */
export function piSessionIdFromPath(path: string): string | undefined {
  const name = basename(path)
  if (!name?.endsWith('.jsonl')) return undefined
  const stem = name.slice(0, -'.jsonl'.length)
  const us = stem.indexOf('_')
  const id = us >= 0 ? stem.slice(us + 1) : stem
  return id === '' ? undefined : id
}
