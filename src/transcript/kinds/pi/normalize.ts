// pi's session JSONL (format v3, pi 0.73.1 in the corpus) → entry drafts.
// One line = one tree entry {type, id, parentId, timestamp, …}; chat lives in
// `message` entries whose message.role is user | assistant | toolResult (…).
// Pure: no clock, no files. Never throws.
import type { Draft, ToolCall } from '../../entry'
import { unplaced, type LineNormalizer } from '../../jsonl/normalizer'
import { piDiffToUnified, snippetDiff, stripSingleFileHeaders } from './diff'
import {
  basename,
  capBody,
  capDiff,
  capOutput,
  inputSummary,
  isObj,
  isoTime,
  oneLine,
  str,
  type Obj,
} from './summary'

/** Entry types that carry session metadata, not conversation: dropped. */
const METADATA_TYPES = new Set([
  'session',
  'model_change',
  'thinking_level_change',
  'custom',
  'label',
  'session_info',
])

/** Tools whose `path` argument names the file they work on. */
const FILE_TOOLS = new Set(['read', 'edit', 'write', 'ls', 'find', 'grep'])

export const normalizePiLine: LineNormalizer = (line, offset) => {
  // (trim only when the line starts blank: a copy of every line otherwise)
  if (line.length === 0 || (line.charCodeAt(0) <= 0x20 && line.trim() === '')) return []
  let rec: unknown
  try {
    rec = JSON.parse(line)
  } catch {
    return [unplaced(line, offset)]
  }
  try {
    const drafts = normalizeRecord(rec, offset)
    return drafts ?? [unplaced(line, offset)]
  } catch {
    // Defensive: a shape no branch foresaw must not break the stream.
    return [unplaced(line, offset)]
  }
}

/** undefined = this line cannot be placed (the caller passes it through as parsed:false). */
function normalizeRecord(rec: unknown, offset: number): Draft[] | undefined {
  if (!isObj(rec) || typeof rec.type !== 'string') return undefined
  if (METADATA_TYPES.has(rec.type)) return []
  // v1 files have no ids: the line's offset is its identity.
  const base = str(rec.id) ?? `line@${offset}`
  const head: Pick<Draft, 'parent_id' | 'ts'> = {}
  const parent = str(rec.parentId)
  if (parent) head.parent_id = parent
  const ts = isoTime(rec.timestamp) ?? (isObj(rec.message) ? isoTime(rec.message.timestamp) : undefined)
  if (ts) head.ts = ts
  const id = (k: number) => `${base}#${k}`

  switch (rec.type) {
    case 'message':
      return isObj(rec.message) ? normalizeMessage(rec.message, id, head) : undefined
    case 'compaction':
    case 'branch_summary': {
      const summary = str(rec.summary)
      if (summary === undefined) return undefined
      const label = rec.type === 'compaction' ? 'Context compacted' : 'Branch summary'
      return [{ id: id(0), ...head, role: 'system', kind: 'message', text: capBody(`${label}\n\n${summary}`), parsed: true }]
    }
    case 'custom_message': {
      if (rec.display === false) return []
      const text = contentText(rec.content)
      return text ? [textDraft(id(0), head, 'system', 'message', capBody(text))] : []
    }
    default:
      return undefined
  }
}

type IdOf = (k: number) => string
type Head = Pick<Draft, 'parent_id' | 'ts'>

/**
 * A message-like draft, keys in the contract's order (id, parent_id, ts, role, …).
 * Built by assignment rather than by spreading `head`: this runs for every line of
 * a session in the index build, and the spread showed in the profile.
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

function normalizeMessage(msg: Obj, id: IdOf, head: Head): Draft[] | undefined {
  switch (msg.role) {
    case 'user':
      return userContent(msg.content, id, head)
    case 'assistant':
      return assistantContent(msg, id, head)
    case 'toolResult':
      return [toolResult(msg, id(0), head)]
    case 'bashExecution':
      return bashExecution(msg, id, head)
    case 'custom':
    case 'hookMessage': {
      if (msg.display === false) return []
      const text = contentText(msg.content)
      return text ? [textDraft(id(0), head, 'system', 'message', capBody(text))] : []
    }
    default:
      return undefined
  }
}

function userContent(content: unknown, id: IdOf, head: Head): Draft[] | undefined {
  if (typeof content === 'string') {
    return [textDraft(id(0), head, 'user', 'message', capBody(content))]
  }
  if (!Array.isArray(content)) return undefined
  const out: Draft[] = []
  content.forEach((b, k) => {
    if (!isObj(b)) return
    if (b.type === 'text' && typeof b.text === 'string') {
      out.push(textDraft(id(k), head, 'user', 'message', capBody(b.text)))
    } else if (b.type === 'image') {
      out.push(textDraft(id(k), head, 'user', 'attachment', '[image]'))
    }
  })
  return out
}

function assistantContent(msg: Obj, id: IdOf, head: Head): Draft[] | undefined {
  if (!Array.isArray(msg.content)) return undefined
  const out: Draft[] = []
  msg.content.forEach((b, k) => {
    if (!isObj(b)) return
    if (b.type === 'text' && typeof b.text === 'string' && b.text.trim() !== '') {
      out.push(textDraft(id(k), head, 'assistant', 'message', capBody(b.text)))
    } else if (b.type === 'thinking' && typeof b.thinking === 'string' && b.thinking.trim() !== '') {
      out.push(textDraft(id(k), head, 'assistant', 'thinking', capBody(b.thinking)))
    } else if (b.type === 'toolCall' && typeof b.id === 'string' && typeof b.name === 'string') {
      out.push({ id: id(k), ...head, role: 'assistant', kind: 'tool_call', tool: toolCall(b.id, b.name, b.arguments), parsed: true })
    }
  })
  // A failed or aborted turn says why only in errorMessage.
  const stop = msg.stopReason
  if ((stop === 'error' || stop === 'aborted') && (typeof msg.errorMessage === 'string' || stop === 'aborted')) {
    const text = str(msg.errorMessage) ?? 'Aborted'
    out.push(textDraft(id(msg.content.length), head, 'system', 'message', capBody(text)))
  }
  return out
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
  const preview = previewDiff(name, a)
  if (preview) {
    const c = capDiff(preview)
    tool.diff = c.text
    if (c.cut) tool.diff_truncated = true
  }
  return tool
}

/** The diff the call asks for, from its arguments (edit: edits[] or the older oldText/newText; write: content). */
function previewDiff(name: string, a: Obj): string | undefined {
  if (name === 'edit') {
    const edits: unknown[] = Array.isArray(a.edits) ? a.edits : [a]
    const parts: string[] = []
    for (const e of edits) {
      if (!isObj(e) || typeof e.oldText !== 'string' || typeof e.newText !== 'string') continue
      const d = snippetDiff(e.oldText, e.newText)
      if (d) parts.push(d)
    }
    return parts.length ? parts.join('\n') : undefined
  }
  if (name === 'write' && typeof a.content === 'string') return snippetDiff('', a.content) || undefined
  return undefined
}

function toolResult(msg: Obj, id: string, head: Head): Draft {
  const forId = str(msg.toolCallId) ?? ''
  const result: NonNullable<Draft['result']> = { for_id: forId, ok: msg.isError !== true }
  const out = contentText(msg.content)
  if (out) {
    const c = capOutput(out)
    result.output_summary = c.text
    if (c.cut) result.truncated = true
  }
  const details = isObj(msg.details) ? msg.details : {}
  // details.patch (newer pi) is already unified; details.diff is pi's display format.
  const unified =
    typeof details.patch === 'string' && details.patch !== ''
      ? stripSingleFileHeaders(details.patch)
      : typeof details.diff === 'string'
        ? piDiffToUnified(details.diff)
        : undefined
  if (unified) {
    const c = capDiff(unified)
    result.diff = c.text
    if (c.cut) result.truncated = true
  }
  return { id, ...head, role: 'user', kind: 'tool_result', result, parsed: forId !== '' }
}

/** A `!cmd` the user ran in the TUI: a call and its result, paired by the entry id. */
function bashExecution(msg: Obj, id: IdOf, head: Head): Draft[] {
  const command = str(msg.command) ?? ''
  const callId = id(0)
  const call: Draft = {
    id: callId,
    ...head,
    role: 'user',
    kind: 'tool_call',
    tool: { id: callId, name: 'bash', title: 'bash', command, input_summary: oneLine(command) },
    parsed: true,
  }
  if (msg.exitCode === undefined && msg.cancelled !== true && msg.output === undefined) return [call]
  const ok = (msg.exitCode === 0 || msg.exitCode === undefined) && msg.cancelled !== true
  const result: NonNullable<Draft['result']> = { for_id: callId, ok }
  if (typeof msg.output === 'string' && msg.output !== '') {
    const c = capOutput(msg.output)
    result.output_summary = c.text
    if (c.cut || msg.truncated === true) result.truncated = true
  }
  return [call, { id: id(1), ...head, role: 'user', kind: 'tool_result', result, parsed: true }]
}

/** Text of a string or (text|image)[] content; images as [image]. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  const parts: string[] = []
  for (const b of content) {
    if (!isObj(b)) continue
    if (b.type === 'text' && typeof b.text === 'string') parts.push(b.text)
    else if (b.type === 'image') parts.push('[image]')
  }
  return parts.join('\n')
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
  if (!name || !name.endsWith('.jsonl')) return undefined
  const stem = name.slice(0, -'.jsonl'.length)
  const us = stem.indexOf('_')
  const id = us >= 0 ? stem.slice(us + 1) : stem
  return id === '' ? undefined : id
}
