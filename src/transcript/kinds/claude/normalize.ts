// Claude Code JSONL line → normalized entry drafts (docs/agent-pane-api.md,
// "Normalized entry schema"). Pure, deterministic, never throws: whatever the
// line holds, the caller gets an array back.
//
// Record decisions, taken from the real corpus files (Claude Code 2.1.197) and
// docs/reference/claude-code.md §2 for types the corpus does not show:
//
//   record                        → entries
//   ----------------------------------------------------------------------------
//   Only the conversational record types below become entries: user,
//   assistant, system, attachment, queue-operation (enqueue) and pr-link. Every
//   other type — the flat bookkeeping Claude Code writes beside the chat
//   (file-history-*, permission-mode, last-prompt, ai-title, progress, …, and
//   2.1.332's api-request, api-request-blob, api-request-shape, atis-latch,
//   tools-used) — yields nothing, including any type a later version adds: an
//   allow-list, so a new kind of bookkeeping never floods the chat and needs no
//   code change. (api-request-blob even carries a `message`: the raw system
//   prompt; no field of an unknown record is taken as a sign of conversation.)
//
//   user (typed text)             → user message (origin human / plain text)
//   user, promptSource "queued"   → none: the prompt was shown at its enqueue
//   user tool_result blocks       → user tool_result, one per block
//   user image / document blocks  → user attachment "[image]" / "[document]"
//   user isMeta                   → none (caveats, skill bodies, reminders: injected, not typed)
//   user isCompactSummary         → system message (the compaction summary)
//   user <task-notification>      → system message "Agent "x" finished\n\n<result>"
//   user <command-name>/x         → user message "/x args" (the user's slash command)
//   user <local-command-stdout>   → system message with the output; none when empty
//   user <local-command-caveat>, <system-reminder> → none
//   user [Request interrupted…]   → system message (the marker text)
//   assistant text                → assistant message (blank text → none)
//   assistant thinking            → assistant thinking, only when it carries text
//   assistant redacted_thinking   → none
//   assistant tool_use (+server_tool_use, mcp_tool_use) → assistant tool_call
//   system local_command          → the slash command as a user message "/x args"
//                                   (as its user-record form), its stdout as a
//                                   system message; none when empty (cc-clear)
//   system informational          → system message (content)
//   system away_summary           → system message (the recap)
//   system compact_boundary       → system message "Conversation compacted"
//   system scheduled_task_fire    → system message (content)
//   system turn_duration, stop_hook_summary, api_error (retries; the final error
//     lands as an assistant message), bridge_status → none (bookkeeping)
//   system, unknown subtype       → parsed:false with its content; none without content
//   queue-operation enqueue of a typed prompt → user message, when it was typed.
//     A prompt typed while the agent is busy may never get a user record
//     (2.1.3x consumes it mid-turn and writes only enqueue + remove), so the
//     enqueue is the one record every version writes; the later copies (2.1.2xx+:
//     an attachment queued_command, or a user record with promptSource "queued")
//     yield nothing. An enqueued slash command yields nothing (it writes its own
//     command record when it runs), nor does an enqueued task-notification (its
//     user record carries it), nor dequeue/remove/popAll.
//   attachment queued_command     → none for a typed prompt (shown at its enqueue);
//                                   a task-notification → system message
//   attachment, any other type    → none (model-facing context: listings, reminders, plan_mode, …)
//   pr-link                       → system message "Pull request #N: url"
//   not JSON / not an object / a conversational record without its body → parsed:false
//   empty or whitespace-only line → none
//
// Text hygiene, on every entry: ANSI escapes are removed from every string
// field, and the <system-reminder> blocks the CLI appends to tool results
// (Read's malware notice, …) are cut off the output.
//
// Tool results with a shape of their own: TaskOutput (2.1.3x) reads
// "<description>: <status>, exit code N" then the END of the output, where a
// build or test run puts its verdict, not the first 4000 characters of log.
//
// isSidechain is not a filter: since 2.1.x it marks exactly the records of a
// subagent file, which the ?subagent= stream normalizes with this same function.
import { LIMITS, type Draft, type Role, type ToolCall, type ToolResult } from '../../entry'
import { countJsonLineTapped, countJsonValueTapped, planJsonLine, planJsonValue, unplaced, type LineCounter, type LineNormalizer } from '../../jsonl/normalizer'
import { basename, capBody, capOutput, cappedDiff, isObj, oneLine, previewDiff, renderHunks, str, withPreviewDiff, type Obj } from '../../tool-summary'
import stripAnsi from 'strip-ansi'
import { classifyUserText, isTaskNotificationText } from './normalize-wrappers'

/** system subtypes that are bookkeeping only. */
export const SILENT_SYSTEM_SUBTYPES: ReadonlySet<string> = new Set(['turn_duration', 'stop_hook_summary', 'api_error', 'bridge_status'])

/** system subtypes shown as a system message with their `content`. */
export const SHOWN_SYSTEM_SUBTYPES: ReadonlySet<string> = new Set(['informational', 'away_summary', 'scheduled_task_fire'])

/** Tools whose primary input is a file path (tool.file = its basename). */
const FILE_TOOLS: Record<string, string> = {
  Edit: 'file_path',
  Read: 'file_path',
  Write: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
}

/** Command tools: tool.command and tool.subtitle (the model-written description). */
const COMMAND_TOOLS = new Set(['Bash', 'PowerShell'])

// ── the one decision: which entries a line yields ───────────────────────────
//
// Deciding and building are split so the index can count a line's entries
// without building them (no diffs, summaries, capping or text extraction):
// planLine() is the only place that decides; normalizeClaudeLine builds each
// slot it returns, countClaudeLine returns how many there are. Because a slot
// that fails to build becomes a parsed:false draft in its place (never a
// different number of drafts), the two can never disagree.

/** One entry a record yields, decided but not built. `k` is its block index (the id suffix). */
type Slot =
  /** a message or thinking entry with this text (capped to the body limit when built) */
  | { as: 'text'; k: number; role: Role; kind: 'message' | 'thinking'; text: string; parsed?: boolean }
  /** a fixed short text, built as is */
  | { as: 'fixed'; k: number; role: Role; kind: 'message' | 'attachment'; text: string }
  | { as: 'tool_result'; k: number; block: Obj; tur: unknown }
  | { as: 'tool_call'; k: number; id: string; name: string; input: unknown }
  /** a content block the reader does not model */
  | { as: 'pass'; k: number; role: Role; block: Obj }

/** undefined ⇒ the line is one parsed:false entry (not JSON, not an object, or a record that cannot be placed). */
const planLine = (line: string) => planJsonLine(line, planRecord)

export const normalizeClaudeLine: LineNormalizer = (line, offset) => {
  if (line.trim() === '') return []
  const plan = planLine(line)
  return (plan && built(plan, offset)) ?? [unplaced(line, offset)]
}
// The same drafts for a line a page read parsed from its bytes (undefined: the text decides).
normalizeClaudeLine.fromJson = (value, offset) => {
  const plan = planJsonValue(value, planRecord)
  return plan && built(plan, offset)
}

/** A plan's drafts; undefined when its envelope cannot be made (then the line is unplaced). */
function built(plan: { rec: Obj; slots: Slot[] }, offset: number): Draft[] | undefined {
  try {
    const env = envelope(plan.rec, str(plan.rec.type) ?? 'line', offset)
    return plan.slots.map((slot) => buildSlot(slot, env))
  } catch {
    return undefined // unreachable: envelope only reads strings
  }
}

/**
 * How many drafts normalizeClaudeLine(line) returns, without building them:
 * what the index needs. Same plan, so always equal (test/transcript/kinds/claude/count.test.ts).
 */
export const countClaudeLine: LineCounter = (line) => countClaudeLineTapped(line, noTap)
function noTap(): void {}

/**
 * countClaudeLine that also hands the parsed record (when the line is a JSON
 * object) to `onRecord`: the index pass folds the subagent roster's facts from
 * the same parse (countClaudeLine is this with no tap).
 */
export function countClaudeLineTapped(line: string, onRecord: (rec: Record<string, unknown>) => void): number {
  return line.trim() === '' ? 0 : countJsonLineTapped(line, planRecord, onRecord)
}

/** countClaudeLineTapped for a non-blank line already parsed as one JSON value. */
export function countClaudeValueTapped(value: unknown, onRecord: (rec: Record<string, unknown>) => void): number {
  return countJsonValueTapped(value, planRecord, onRecord)
}

/** A pull request the session opened: one line with its number and address. */
function prLink(rec: Obj): Slot[] {
  const url = str(rec.prUrl)
  if (!url) return []
  const n = typeof rec.prNumber === 'number' ? ` #${rec.prNumber}` : ''
  return [{ as: 'fixed', k: 0, role: 'system', kind: 'message', text: `Pull request${n}: ${url}` }]
}

/** How each record type that belongs to the conversation is planned; every other type is bookkeeping. */
const PLAN_OF_TYPE: Readonly<Record<string, (rec: Obj) => Slot[] | undefined>> = {
  user: userRecord,
  assistant: assistantRecord,
  system: systemRecord,
  attachment: attachmentRecord,
  'queue-operation': queueOperation,
  'pr-link': prLink,
}

/**
 * The record types that can hold conversation (see the table at the top). Any
 * other type is bookkeeping and yields nothing, whatever fields it carries.
 */
export const CONVERSATION_TYPES: ReadonlySet<string> = new Set(Object.keys(PLAN_OF_TYPE))

/** undefined ⇒ the record could not be placed (the line becomes parsed:false). */
function planRecord(rec: Obj): Slot[] | undefined {
  const type = str(rec.type)
  if (type === undefined) return undefined // not a Claude Code record at all
  // bookkeeping, known or not (an own property only: "constructor" is a type like any other)
  return Object.hasOwn(PLAN_OF_TYPE, type) ? PLAN_OF_TYPE[type]!(rec) : []
}

/** Builds one slot; a slot whose build fails is still one entry (its block, parsed:false). */
function buildSlot(slot: Slot, env: Envelope): Draft {
  try {
    return withoutAnsi(buildSlotRaw(slot, env))
  } catch {
    // fall through
  }
  const role = slot.as === 'tool_call' ? 'assistant' : slot.as === 'tool_result' ? 'user' : slot.role
  return env.draft(slot.k, role, 'message', { text: '[unreadable block]', parsed: false })
}

// Any ESC (0x1b) or CSI (0x9b) means a sequence may be there; most strings have neither.
const ESCAPE_RE = /[\u001b\u009b]/
const clean = (v: string): string => (ESCAPE_RE.test(v) ? stripAnsi(v) : v)

/** ANSI escapes never reach a text field: terminal colour in a tool's output or a CLI notice is noise on a phone. */
function withoutAnsi(d: Draft): Draft {
  if (d.text !== undefined) d.text = clean(d.text)
  if (d.tool) {
    const t = d.tool
    for (const k of ['title', 'subtitle', 'command', 'file', 'diff', 'input_summary'] as const) {
      const v = t[k]
      if (v !== undefined) t[k] = clean(v)
    }
  }
  if (d.result) {
    const r = d.result
    if (r.output_summary !== undefined) r.output_summary = clean(r.output_summary)
    if (r.diff !== undefined) r.diff = clean(r.diff)
  }
  return d
}

function buildSlotRaw(slot: Slot, env: Envelope): Draft {
  switch (slot.as) {
    case 'text': {
      const extra: Partial<Draft> = { text: capBody(slot.text) }
      if (slot.parsed === false) extra.parsed = false
      return env.draft(slot.k, slot.role, slot.kind, extra)
    }
    case 'fixed':
      return env.draft(slot.k, slot.role, slot.kind, { text: slot.text })
    case 'tool_result':
      return toolResult(slot.block, slot.tur, slot.k, env)
    case 'tool_call':
      return env.draft(slot.k, 'assistant', 'tool_call', { tool: toolCall(slot.id, slot.name, slot.input) })
    case 'pass':
      return passThrough(slot.block, slot.k, slot.role, env)
  }
}

interface Envelope {
  draft(k: number, role: Role, kind: Draft['kind'], extra: Partial<Draft>): Draft
}

function envelope(rec: Obj, type: string, offset: number): Envelope {
  const uuid = str(rec.uuid)
  const base = uuid ?? `${type}@${offset}`
  const parent = str(rec.parentUuid)
  const ts = str(rec.timestamp)
  return {
    draft(k, role, kind, extra) {
      // Key order follows the contract's examples: id, parent_id, ts, role, kind, …, parsed.
      const d = { id: `${base}#${k}` } as Draft
      if (parent) d.parent_id = parent
      if (ts) d.ts = ts
      d.role = role
      d.kind = kind
      Object.assign(d, extra)
      d.parsed = extra.parsed ?? true
      return d
    },
  }
}

// ── user ────────────────────────────────────────────────────────────────────

function userRecord(rec: Obj): Slot[] | undefined {
  const msg = rec.message
  if (!isObj(msg)) return undefined
  const content = msg.content
  if (rec.isMeta === true) return []
  if (rec.isCompactSummary === true) {
    const text = flattenText(content)
    return text ? [{ as: 'text', k: 0, role: 'system', kind: 'message', text }] : []
  }
  // A prompt typed while busy was shown at its enqueue; this is its delivery.
  const queued = rec.promptSource === 'queued'
  if (typeof content === 'string') return queued && isTypedPrompt(content) ? [] : userText(content, 0)
  if (!Array.isArray(content)) return undefined
  const out: Slot[] = []
  // toolUseResult belongs to the record; with several results in one record
  // (older builds) it cannot be attributed, so each falls back to its content.
  let results = 0
  for (const b of content) if (isObj(b) && b.type === 'tool_result') results++
  const tur = results === 1 ? rec.toolUseResult : undefined
  for (let k = 0; k < content.length; k++) {
    const block = content[k]
    if (!isObj(block)) continue
    switch (block.type) {
      case 'text':
        if (typeof block.text === 'string' && !(queued && isTypedPrompt(block.text))) out.push(...userText(block.text, k))
        break
      case 'tool_result':
        out.push({ as: 'tool_result', k, block, tur })
        break
      case 'image':
        out.push({ as: 'fixed', k, role: 'user', kind: 'attachment', text: '[image]' })
        break
      case 'document':
        out.push({ as: 'fixed', k, role: 'user', kind: 'attachment', text: '[document]' })
        break
      default:
        out.push({ as: 'pass', k, role: 'user', block })
    }
  }
  return out
}

function userText(text: string, k: number): Slot[] {
  const c = classifyUserText(text)
  switch (c.kind) {
    case 'noise':
      return []
    case 'system':
      return c.text.trim() ? [{ as: 'text', k, role: 'system', kind: 'message', text: c.text }] : []
    case 'slash':
    case 'human':
      return c.text.trim() ? [{ as: 'text', k, role: 'user', kind: 'message', text: c.text }] : []
  }
}

/** A content block the reader does not model: shown minimally, flagged parsed:false. */
function passThrough(block: Obj, k: number, role: Role, env: Envelope): Draft {
  const raw = JSON.stringify(block)
  const text = typeof block.text === 'string' ? block.text : raw.length > 2000 ? raw.slice(0, 2000) + '…' : raw
  return env.draft(k, role, 'message', { text: capBody(text), parsed: false })
}

/** Text of a string or of text-ish blocks (images as "[image]"). */
function flattenText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  const parts: string[] = []
  for (const b of content) {
    if (typeof b === 'string') parts.push(b)
    else if (!isObj(b)) continue
    else if (b.type === 'text' && typeof b.text === 'string') parts.push(b.text)
    else if (b.type === 'image') parts.push('[image]')
    else if (b.type === 'document') parts.push('[document]')
    else if (b.type === 'tool_reference' && typeof b.tool_name === 'string') parts.push(b.tool_name)
  }
  return parts.join('\n')
}

const REJECTION_PREFIXES = ["The user doesn't want to proceed with this tool use", 'Permission for this tool use was denied', '[Request interrupted by user']

/** toolUseResult strings that mean "did not run because the user said no". */
const REJECTION_RESULTS = ['User rejected tool use']

function toolResult(block: Obj, tur: unknown, k: number, env: Envelope): Draft {
  const forId = str(block.tool_use_id) ?? ''
  const contentText = withoutAppendedReminders(flattenText(block.content))
  const task = taskOutputOf(tur, contentText)
  if (task) {
    const result: ToolResult = { for_id: forId, ok: block.is_error !== true && task.ok }
    const out = taskOutputSummary(task)
    result.output_summary = out.text
    if (out.cut) result.truncated = true
    return env.draft(k, 'user', 'tool_result', { result })
  }
  const rejected = (typeof tur === 'string' && REJECTION_RESULTS.some((r) => tur.startsWith(r))) || REJECTION_PREFIXES.some((p) => contentText.startsWith(p))
  const interrupted = isObj(tur) && tur.interrupted === true
  const isError = block.is_error === true
  const result: ToolResult = { for_id: forId, ok: !(isError || rejected || interrupted) }

  let output: string
  if (rejected && typeof tur === 'string')
    output = tur // "User rejected tool use": the phone-sized version
  else if (isObj(tur) && (typeof tur.stdout === 'string' || typeof tur.stderr === 'string')) {
    // Bash/PowerShell: stdout is the full text even when content holds a persisted-output preview.
    const stdout = str(tur.stdout) ?? ''
    const stderr = str(tur.stderr) ?? ''
    output = [stdout, stderr ? `[stderr] ${stderr}` : ''].filter(Boolean).join('\n')
    if (!output) output = contentText // background launch notices, "(No content)"
  } else if (isObj(tur) && Array.isArray(tur.content) && typeof tur.agentId === 'string') {
    // Agent/Task sync result: the agent's answer without the "agentId: … <usage>" trailer block.
    output = flattenText(tur.content) || contentText
  } else if (isObj(tur) && tur.status === 'async_launched') {
    output = contentText.split('\n')[0] ?? ''
  } else {
    output = stripToolUseError(contentText)
    // A failing command reports merged stdout+stderr as the error text.
    if (isError && !rejected && output && !output.startsWith('[stderr]') && looksLikeCommandFailure(tur, output)) output = `[stderr] ${output}`
  }
  let truncated = false
  if (output) {
    const c = capOutput(output)
    result.output_summary = c.text
    truncated ||= c.cut
  }
  const applied = appliedDiff(tur)
  if (applied.diff) {
    result.diff = applied.diff
    truncated ||= applied.truncated
  }
  if (truncated) result.truncated = true
  return env.draft(k, 'user', 'tool_result', { result })
}

/**
 * Cuts the <system-reminder> blocks the CLI appends to a tool's output (Read's
 * malware notice, …): only blocks at the very end, each starting a line, so a
 * file that merely mentions the tag keeps it.
 */
function withoutAppendedReminders(text: string): string {
  const OPEN = '<system-reminder>'
  let s = text
  for (;;) {
    const t = s.trimEnd()
    if (!t.endsWith('</system-reminder>')) return s
    const i = t.lastIndexOf(OPEN)
    if (i < 0 || (i > 0 && t[i - 1] !== '\n')) return s
    s = t.slice(0, i).trimEnd()
  }
}

/** A TaskOutput result (2.1.3x): what the background task is, how it ended, its output. */
interface TaskOutput {
  label: string
  status?: string
  exitCode?: number
  /** the retrieval gave up waiting (the task still runs) */
  timedOut: boolean
  output: string
  ok: boolean
}

const TERMINAL_FAILURES = new Set(['failed', 'killed', 'error'])

function taskOutputOf(tur: unknown, content: string): TaskOutput | undefined {
  let label: string | undefined
  let status: string | undefined
  let exit: unknown
  let retrieval: string | undefined
  let output: string | undefined
  if (isObj(tur) && isObj(tur.task) && typeof tur.retrieval_status === 'string') {
    const t = tur.task
    retrieval = tur.retrieval_status
    label = str(t.description) || str(t.task_id)
    status = str(t.status)
    exit = t.exitCode ?? t.exit_code
    output = str(t.output)
  } else if (content.startsWith('<retrieval_status>')) {
    // No toolUseResult (or an unexpected one): the same facts are in the content's tags.
    const tag = (name: string) => new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(content)?.[1]?.trim()
    retrieval = tag('retrieval_status')
    label = tag('task_id')
    status = tag('status')
    exit = tag('exit_code')
    const at = content.indexOf('<output>')
    if (at >= 0) output = content.slice(at + '<output>'.length).replace(/<\/output>\s*$/, '')
  } else return undefined
  const exitCode = typeof exit === 'number' ? exit : typeof exit === 'string' && /^-?\d+$/.test(exit) ? Number(exit) : undefined
  const failed = (status !== undefined && TERMINAL_FAILURES.has(status)) || (exitCode !== undefined && exitCode !== 0)
  return {
    label: label || 'Background task',
    status,
    exitCode,
    timedOut: retrieval === 'timeout',
    output: (output ?? '').replace(/^\n+/, '').trimEnd(),
    ok: !failed,
  }
}

/**
 * "<label>: <status>, exit code N", then the end of the output: a build or test
 * log puts its verdict last, so when it does not fit the start is what goes.
 */
function taskOutputSummary(t: TaskOutput): { text: string; cut: boolean } {
  let state = t.status ?? 'unknown'
  if (t.timedOut && (t.status === undefined || t.status === 'running')) state = 'still running (stopped waiting)'
  if (t.exitCode !== undefined) state += `, exit code ${t.exitCode}`
  const head = `${t.label}: ${state}`
  if (!t.output) return { text: head, cut: false }
  const room = LIMITS.outputRunes - [...head].length - 4 // "\n\n" + "…\n"
  const tail = lastRunes(t.output, room)
  if (!tail.cut) return { text: `${head}\n\n${t.output}`, cut: false }
  // Start the kept part at a line boundary when one is near, so the first line shown is whole.
  const nl = tail.text.indexOf('\n')
  const kept = nl >= 0 && nl < 1000 ? '…\n' + tail.text.slice(nl + 1).replace(/^\n+/, '') : '…' + tail.text
  return { text: `${head}\n\n${kept}`, cut: true }
}

/** The last `max` code points of a string; says whether it cut. */
function lastRunes(s: string, max: number): { text: string; cut: boolean } {
  if (max <= 0) return { text: '', cut: s.length > 0 }
  if (s.length <= max) return { text: s, cut: false }
  let i = s.length
  let runes = 0
  while (i > 0 && runes < max) {
    const c = s.charCodeAt(i - 1)
    i -= c >= 0xdc00 && c <= 0xdfff && i >= 2 ? 2 : 1
    runes++
  }
  return { text: s.slice(i), cut: i > 0 }
}

function stripToolUseError(s: string): string {
  const m = /^\s*<tool_use_error>([\s\S]*?)<\/tool_use_error>\s*$/.exec(s)
  return m ? m[1]! : s
}

/** Bash failures come back as "Exit code N\n…" (toolUseResult "Error: Exit code N…"). */
function looksLikeCommandFailure(tur: unknown, output: string): boolean {
  return /^Exit code \d+/.test(output) || (typeof tur === 'string' && /^Error: Exit code \d+/.test(tur))
}

/** The applied diff: structuredPatch hunks; a created file (empty patch) as all-added. */
function appliedDiff(tur: unknown): { diff?: string; truncated: boolean } {
  if (!isObj(tur)) return { truncated: false }
  const hunks = tur.structuredPatch
  if (Array.isArray(hunks) && hunks.length > 0) return cappedDiff(renderHunks(hunks))
  if (tur.type === 'create' && typeof tur.content === 'string') return cappedDiff(previewDiff('', tur.content))
  return { truncated: false }
}

// ── assistant ───────────────────────────────────────────────────────────────

function assistantRecord(rec: Obj): Slot[] | undefined {
  const msg = rec.message
  if (!isObj(msg)) return undefined
  const content = msg.content
  if (typeof content === 'string') return content.trim() ? [{ as: 'text', k: 0, role: 'assistant', kind: 'message', text: content }] : []
  if (!Array.isArray(content)) return undefined
  const out: Slot[] = []
  for (let k = 0; k < content.length; k++) {
    const block = content[k]
    if (!isObj(block)) continue
    const type = str(block.type) ?? ''
    if (type === 'text') {
      const text = str(block.text) ?? ''
      if (text.trim()) out.push({ as: 'text', k, role: 'assistant', kind: 'message', text })
    } else if (type === 'thinking') {
      // Recent builds persist thinking as '' + signature: nothing to show then.
      const text = str(block.thinking) ?? ''
      if (text.trim()) out.push({ as: 'text', k, role: 'assistant', kind: 'thinking', text })
    } else if (type === 'redacted_thinking') {
      // nothing readable
    } else if (type.endsWith('tool_use') && typeof block.id === 'string' && typeof block.name === 'string') {
      out.push({ as: 'tool_call', k, id: block.id, name: block.name, input: block.input })
    } else if (type.endsWith('tool_result') && typeof block.tool_use_id === 'string') {
      // server-side tool results (web search) live in the assistant record
      out.push({ as: 'tool_result', k, block, tur: undefined })
    } else {
      out.push({ as: 'pass', k, role: 'assistant', block })
    }
  }
  return out
}

/** Builds the tool card of a tool_use block. Exported for other kinds mirroring Claude's tools. */
export function toolCall(id: string, name: string, rawInput: unknown): ToolCall {
  const input: Obj = isObj(rawInput) ? rawInput : {}
  const tool: ToolCall = { id, name, title: name }
  if (COMMAND_TOOLS.has(name)) {
    const command = str(input.command)
    if (command !== undefined) tool.command = capOutput(command).text
    const description = str(input.description)
    if (description) tool.subtitle = oneLine(description, 200)
  } else if ((name === 'Agent' || name === 'Task') && str(input.description)) {
    tool.subtitle = oneLine(str(input.description)!, 200)
  }
  const fileKey = FILE_TOOLS[name]
  const path = fileKey ? str(input[fileKey]) : undefined
  if (path) tool.file = basename(path)
  withPreviewDiff(tool, previewFor(name, input))
  tool.input_summary = summaryByTool(name, input)
  return tool
}

/** The diff a call asks for (Edit, Write, MultiEdit), before capping; undefined for other tools. */
function previewFor(name: string, input: Obj): string | undefined {
  if (name === 'Edit') {
    const before = str(input.old_string)
    const after = str(input.new_string)
    if (before !== undefined && after !== undefined) return previewDiff(before, after)
  } else if (name === 'Write') {
    const content = str(input.content)
    if (content !== undefined) return previewDiff('', content)
  } else if (name === 'MultiEdit' && Array.isArray(input.edits)) {
    const parts: string[] = []
    for (const e of input.edits) {
      if (!isObj(e)) continue
      const before = str(e.old_string)
      const after = str(e.new_string)
      if (before !== undefined && after !== undefined) parts.push(previewDiff(before, after))
    }
    return parts.filter(Boolean).join('\n')
  }
  return undefined
}

/** Per-tool one-liners (summaryByTool); anything else gets its compact JSON input. */
const SUMMARY_FIELDS: Record<string, string[]> = {
  Bash: ['command'],
  PowerShell: ['command'],
  Edit: ['file_path'],
  Read: ['file_path'],
  Write: ['file_path'],
  MultiEdit: ['file_path'],
  NotebookEdit: ['notebook_path'],
  WebFetch: ['url'],
  WebSearch: ['query'],
  Grep: ['pattern', 'path'],
  Glob: ['pattern', 'path'],
  Agent: ['subagent_type', 'description'],
  Task: ['subagent_type', 'description'],
  TaskCreate: ['subject'],
  TaskUpdate: ['taskId', 'status'],
  Skill: ['skill', 'args'],
  SendMessage: ['to', 'message'],
  ExitPlanMode: ['plan'],
}

function summaryByTool(name: string, input: Obj): string {
  if (name === 'AskUserQuestion' && Array.isArray(input.questions)) {
    const q = input.questions.find((x) => isObj(x) && typeof x.question === 'string') as Obj | undefined
    if (q) return oneLine(q.question as string)
  }
  if (name === 'TodoWrite' && Array.isArray(input.todos)) return `${input.todos.length} todos`
  const fields = SUMMARY_FIELDS[name]
  if (fields) {
    const vals = fields.map((f) => input[f]).filter((v) => typeof v === 'string' || typeof v === 'number')
    if (vals.length) return oneLine(vals.map(String).join(' · '))
  }
  const json = JSON.stringify(input)
  return oneLine(json === '{}' ? name : json)
}

// ── system & attachment ─────────────────────────────────────────────────────

function systemRecord(rec: Obj): Slot[] | undefined {
  const subtype = str(rec.subtype)
  const content = str(rec.content)
  if (subtype === 'local_command') {
    if (!content) return []
    const c = classifyUserText(content)
    if (c.kind === 'noise' || !c.text.trim()) return []
    // The command line is the user's, however the CLI filed it: shown as its user-record form is.
    const role: Role = c.kind === 'slash' ? 'user' : 'system'
    return [{ as: 'text', k: 0, role, kind: 'message', text: c.text }]
  }
  if (subtype === 'compact_boundary') {
    const meta = isObj(rec.compactMetadata) ? rec.compactMetadata : {}
    const trigger = str(meta.trigger)
    const text = trigger ? `Conversation compacted (${trigger})` : 'Conversation compacted'
    return [{ as: 'fixed', k: 0, role: 'system', kind: 'message', text }]
  }
  if (subtype !== undefined && SILENT_SYSTEM_SUBTYPES.has(subtype)) return []
  if (subtype !== undefined && SHOWN_SYSTEM_SUBTYPES.has(subtype))
    return content?.trim() ? [{ as: 'text', k: 0, role: 'system', kind: 'message', text: content }] : []
  // Unknown subtype (or the old subtype-less format): show content, flagged as not modelled.
  if (!content?.trim()) return []
  return [{ as: 'text', k: 0, role: 'system', kind: 'message', text: content, parsed: subtype === undefined }]
}

function attachmentRecord(rec: Obj): Slot[] | undefined {
  const att = rec.attachment
  if (!isObj(att)) return undefined
  if (att.type === 'queued_command') {
    // The mid-turn delivery of a queued prompt (shown at its enqueue); task
    // notifications also queue this way and are shown here.
    const prompt = flattenText(att.prompt)
    return prompt && !isTypedPrompt(prompt) ? userText(prompt, 0) : []
  }
  return []
}

/** A slash command as typed into the prompt box: "/name" or "/name args". */
const SLASH_COMMAND_RE = /^\/[A-Za-z][\w:.-]*(?:\s|$)/

/** Text the user typed as a prompt (not a notification, a wrapper or a slash command). */
function isTypedPrompt(text: string): boolean {
  if (isTaskNotificationText(text) || SLASH_COMMAND_RE.test(text.trimStart())) return false
  return classifyUserText(text).kind === 'human'
}

function queueOperation(rec: Obj): Slot[] {
  if (rec.operation !== 'enqueue') return []
  const text = flattenText(rec.content)
  // A typed prompt: shown when typed. Commands and notifications are shown by their own records.
  return text.trim() && isTypedPrompt(text) ? [{ as: 'text', k: 0, role: 'user', kind: 'message', text }] : []
}
