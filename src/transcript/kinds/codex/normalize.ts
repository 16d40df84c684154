// Codex CLI rollout JSONL (0.171.0, corpus codex-*) → entry drafts.
// One line = one record {timestamp, ordinal, type, payload}. The conversation is in
// `response_item`s (messages, reasoning, tool calls and their outputs, as the model saw
// them); `event_msg item_completed` carries what the tools actually did (a command's exit
// code and output, the applied per-file diffs). Everything else is bookkeeping.
//
// Pairing: a result's for_id is the call's call_id. A command's result is its
// CommandExecution item (exit code, output); the model's view of the same result
// (function_call_output "Chunk ID … Process exited with code N … Output:", or "Process
// running with session ID N" while it keeps going) is dropped so a call has one result,
// except a non-zero exit the sandbox caused (codex writes no item for a command its sandbox
// stopped: that output is its only result). A call the user declined or the harness refused
// ("aborted by user", "exec command rejected by user", "`justification` requires …") is ok:false.
// A command that outlives its turn (interrupted, or still running when the model moved
// on) reports later under the same call id: the output "aborted by user" is one result,
// the late CommandExecution another. A successful apply_patch's result is its FileChange
// item (the applied diff); the plain-text output saying the same is dropped. A write_stdin
// that only polls a running command is dropped with its output; one that types into the
// command is a call whose output, when it only reports the command's end, is dropped too
// (the command's item carries it), so such a call shows no result of its own.
//
// The one thing a line cannot say alone: a command interrupted with its turn gets "aborted by
// user" as its output, which is what the model and the user were told, yet its process runs
// on and its CommandExecution later reports it completed. The index pass notes each aborted
// call id (abortedCallOf, folded by file-fold.ts) and a later result for that call is amended
// (afterAbort): a success reads ok:false, its output kept under "Finished after it was aborted".
//
// Decide/build split as in pi: planLine() decides the slots of a line, normalizeCodexLine
// builds them, countCodexLine counts them (test/transcript/kinds/codex/count.test.ts). Pure; never throws.
import type { Draft, ToolCall } from '../../entry'
import { countJsonLineTapped, isBlankLine, planJsonLine, unplaced, type LineCounter, type LineNormalizer } from '../../jsonl/normalizer'
import { basename, capBody, cappedResult, inputSummary, isObj, isoTime, oneLine, previewDiff, str, withPreviewDiff, type Obj } from '../../tool-summary'

/** Top-level record types that carry no conversation. */
const BOOKKEEPING = new Set(['session_meta', 'turn_context', 'world_state', 'token_usage_record', 'retained_context'])

/** response_item payload types that are model plumbing, not conversation. */
const SILENT_ITEMS = new Set(['ghost_snapshot', 'compaction', 'compaction_summary', 'tool_search_call', 'tool_search_output', 'additional_tools'])

/** Injected (harness) user text when the record says nothing about provenance (older files). */
const INJECTED = /^(?:<([a-z_][\w-]*)(?:\s[^>]*)?>[\s\S]*<\/\1>\s*$|# AGENTS\.md instructions for\b|<INSTRUCTIONS>)/

type Slot =
  | { as: 'text'; k: number; role: Draft['role']; kind: 'message' | 'thinking'; text: string }
  | { as: 'fixed'; k: number; role: Draft['role']; kind: 'attachment'; text: string }
  | { as: 'call'; k: number; callId: string; name: string; args: unknown; by: 'assistant' | 'user' }
  | { as: 'output'; k: number; callId: string; output: unknown }
  | { as: 'command'; k: number; item: Obj }
  | { as: 'file_change'; k: number; item: Obj }

/**
 * Records known to yield nothing, told by their first bytes as codex 0.171.0 writes them
 * (key order timestamp, ordinal, type, payload), so the index build does not parse them:
 * they are most of a rollout's bytes (turn context, settings, world state, developer
 * instructions, token counts, mirrored items). normalize and count both take this exit
 * first, so they agree even on a torn line (which then yields nothing, not parsed:false).
 */
const SILENT_PREFIX = new RegExp(
  '^\\{"timestamp":"[^"]*",(?:"ordinal":\\d+,)?"type":"(?:' +
    '(?:session_meta|turn_context|world_state|token_usage_record|retained_context)"' +
    '|event_msg","payload":\\{"type":"(?:token_count|thread_settings_applied|task_started)"' +
    '|event_msg","payload":\\{"type":"item_completed","thread_id":"[^"]*","turn_id":"[^"]*","item":\\{"type":"(?:UserMessage|AgentMessage|Reasoning|Plan)"' +
    '|response_item","payload":\\{"type":"message",(?:"id":"[^"]*",)?"role":"developer"' +
    ')',
)

/** where a record's time starts: after `{"timestamp":"` (every SILENT_PREFIX line has it) */
const STAMP_AT = '{"timestamp":"'.length

/** A record without a string type cannot be placed. */
const planTyped = (rec: Obj): Slot[] | undefined => (typeof rec.type === 'string' ? planRecord(rec.type, rec.payload) : undefined)

/** undefined ⇒ the line is one parsed:false entry (not JSON, or a record that cannot be placed). */
const planLine = (line: string) => planJsonLine(line, planTyped)

export const normalizeCodexLine: LineNormalizer = (line, offset) => {
  if (isBlankLine(line) || SILENT_PREFIX.test(line)) return []
  const plan = planLine(line)
  if (!plan) return [unplaced(line, offset)]
  if (plan.slots.length === 0) return []
  const head = headOf(plan.rec)
  const base = `${idOf(plan.rec) ?? 'line'}@${offset}`
  return plan.slots.map((slot) => buildSlot(slot, `${base}#${slot.k}`, head))
}

/** How many drafts normalizeCodexLine(line) returns, without building them. */
export const countCodexLine: LineCounter = (line) => {
  if (isBlankLine(line) || SILENT_PREFIX.test(line)) return 0
  const plan = planLine(line)
  return plan ? plan.slots.length : 1
}

/** The silent records that state usage: the model, the context window, token counts and rate limits. */
const USAGE_RECORD = /^\{"timestamp":"[^"]*",(?:"ordinal":\d+,)?"type":"(?:turn_context"|event_msg","payload":\{"type":"(?:token_count|task_started)")/

/**
 * countCodexLine that also hands the parsed record to `onRecord` (the index pass
 * folds usage from the same parse); a silent line is parsed only when it states usage.
 */
export function countCodexLineTapped(line: string, onRecord: (rec: Obj) => void): number {
  if (isBlankLine(line)) return 0
  if (!SILENT_PREFIX.test(line)) return countJsonLineTapped(line, planTyped, onRecord)
  if (USAGE_RECORD.test(line))
    countJsonLineTapped(line, () => [], onRecord) // silent: no entries, but it states usage
  // silent and no usage: only its time, from the prefix SILENT_PREFIX matched (no parse)
  else onRecord({ timestamp: line.slice(STAMP_AT, line.indexOf('"', STAMP_AT)) })
  return 0
}

/** undefined = the record cannot be placed (one parsed:false entry). */
function planRecord(type: string, payload: unknown): Slot[] | undefined {
  if (BOOKKEEPING.has(type)) return []
  if (!isObj(payload)) return undefined
  switch (type) {
    case 'response_item':
      return planItem(payload)
    case 'event_msg':
      return planEvent(payload)
    case 'compacted': {
      const summary = str(payload.message)
      return [{ as: 'text', k: 0, role: 'system', kind: 'message', text: summary ? `Context compacted\n\n${summary}` : 'Context compacted' }]
    }
    default:
      return undefined
  }
}

function planItem(p: Obj): Slot[] | undefined {
  const t = p.type
  if (typeof t !== 'string') return undefined
  if (SILENT_ITEMS.has(t)) return []
  switch (t) {
    case 'message':
      return planMessage(p)
    case 'reasoning': {
      const text = reasoningText(p)
      return text ? [{ as: 'text', k: 0, role: 'assistant', kind: 'thinking', text }] : []
    }
    case 'function_call':
    case 'custom_tool_call': {
      const callId = str(p.call_id)
      const name = str(p.name)
      if (!callId || !name) return undefined
      // write_stdin with nothing to write only waits for a running command's output: the
      // command's own result (its CommandExecution item) says what came of it
      if (name === 'write_stdin' && !writesSomething(p.arguments)) return []
      return [{ as: 'call', k: 0, callId, name, args: t === 'custom_tool_call' ? p.input : p.arguments, by: 'assistant' }]
    }
    case 'local_shell_call': {
      const callId = str(p.call_id) ?? str(p.id)
      if (!callId) return undefined
      const action = isObj(p.action) ? p.action : {}
      return [{ as: 'call', k: 0, callId, name: 'local_shell', args: { command: action.command }, by: 'assistant' }]
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const callId = str(p.call_id)
      if (!callId) return undefined
      return carriedElsewhere(p.output) ? [] : [{ as: 'output', k: 0, callId, output: p.output }]
    }
    case 'web_search_call': {
      const action = isObj(p.action) ? p.action : {}
      const callId = str(p.call_id) ?? str(p.id) ?? 'web_search'
      return [{ as: 'call', k: 0, callId, name: 'web_search', args: action, by: 'assistant' }]
    }
    default:
      return undefined
  }
}

function writesSomething(args: unknown): boolean {
  const a = parseArgs(args)
  return isObj(a) && typeof a.chars === 'string' && a.chars !== ''
}

function planMessage(p: Obj): Slot[] | undefined {
  const role = p.role
  if (role === 'developer' || role === 'system') return []
  if (!Array.isArray(p.content)) return undefined
  if (role === 'assistant') {
    const text = p.content
      .filter((c): c is Obj => isObj(c) && typeof c.text === 'string')
      .map((c) => c.text as string)
      .join('\n\n')
    return text.trim() ? [{ as: 'text', k: 0, role: 'assistant', kind: 'message', text: proposedPlan(text) }] : []
  }
  if (role !== 'user') return undefined
  const meta = isObj(p.internal_chat_message_metadata_passthrough) ? p.internal_chat_message_metadata_passthrough : undefined
  const provenance = meta && Array.isArray(meta.content_item_metadata) ? meta.content_item_metadata : undefined
  const out: Slot[] = []
  for (let k = 0; k < p.content.length; k++) {
    const c = p.content[k]
    if (!isObj(c)) continue
    const prov = provenance?.[k]
    const typed = isObj(prov) && isObj(prov.provenance) ? prov.provenance.type === 'user' : undefined
    if (typed === false) continue // harness context: environment, turn_aborted, instructions
    if (c.type === 'input_text' && typeof c.text === 'string') {
      if (typed === undefined && INJECTED.test(c.text.trimStart())) continue
      if (c.text.trim()) out.push({ as: 'text', k, role: 'user', kind: 'message', text: c.text })
    } else if (c.type === 'input_image') {
      out.push({ as: 'fixed', k, role: 'user', kind: 'attachment', text: '[image]' })
    }
  }
  return out
}

function planEvent(p: Obj): Slot[] | undefined {
  switch (p.type) {
    case 'turn_aborted': {
      const reason = str(p.reason)
      const text = !reason || reason === 'interrupted' ? 'Conversation interrupted' : `Turn aborted (${reason})`
      return [{ as: 'text', k: 0, role: 'system', kind: 'message', text }]
    }
    case 'task_complete': {
      const err = isObj(p.error) ? str(p.error.message) : str(p.error)
      return err ? [{ as: 'text', k: 0, role: 'system', kind: 'message', text: `Error: ${err}` }] : []
    }
    case 'error': {
      const msg = str(p.message)
      return msg ? [{ as: 'text', k: 0, role: 'system', kind: 'message', text: `Error: ${msg}` }] : []
    }
    case 'thread_rolled_back': {
      const n = typeof p.num_turns === 'number' ? p.num_turns : undefined
      return [{ as: 'text', k: 0, role: 'system', kind: 'message', text: n !== undefined ? `Rolled back ${n} turn${n === 1 ? '' : 's'}` : 'Rolled back' }]
    }
    case 'item_completed': {
      const item = isObj(p.item) ? p.item : undefined
      if (!item) return undefined
      if (item.type === 'CommandExecution') {
        if (!str(item.id)) return undefined
        // a command the user ran with "!": no model call exists, so the item is both
        return item.source === 'user_shell'
          ? [
              { as: 'call', k: 0, callId: item.id as string, name: 'shell', args: { command: item.command }, by: 'user' },
              { as: 'command', k: 1, item },
            ]
          : [{ as: 'command', k: 0, item }]
      }
      if (item.type === 'FileChange') return str(item.id) ? [{ as: 'file_change', k: 0, item }] : undefined
      return [] // UserMessage, AgentMessage, Reasoning, Plan: mirrors of response items
    }
    default:
      // task_started, token_count, thread_settings_applied, …: bookkeeping; and codex adds
      // event types often — an event is a UI mirror, never the only copy of the conversation
      return []
  }
}

// ── outputs ──────────────────────────────────────────────────────────────────

const UNIFIED_EXEC_DONE = /^Chunk ID: [^\n]*\n(?:[^\n]*\n)*?Process (?:exited with code -?\d+|running with session ID \S+)\n/
const PATCH_DONE = /^Exit code: 0\nWall time: [^\n]*\nOutput:\nSuccess\. Updated the following files:\n/

/**
 * What codex itself takes for a sandbox denial (its is_likely_sandbox_denied keywords). A
 * command the sandbox stopped gets no CommandExecution item (0.171.0, read-only sandbox:
 * "out.txt: Read-only file system", exit 1): its output is the only record that it failed.
 */
const SANDBOX_DENIED = /operation not permitted|permission denied|read-only file system|seccomp|sandbox|landlock|failed to write file/i
const EXITED_NONZERO = /(?:^|\n)Process exited with code (?!0\n)-?\d+\n/

/** An output whose substance an item_completed carries (command ended or still running; patch applied). */
function carriedElsewhere(output: unknown): boolean {
  if (typeof output !== 'string') return false
  if (PATCH_DONE.test(output)) return true
  if (!UNIFIED_EXEC_DONE.test(output)) return false
  return !(EXITED_NONZERO.test(output) && SANDBOX_DENIED.test(output))
}

/**
 * Outputs codex writes when a call did not run or did not do its work (the user declined the
 * approval, the harness refused the arguments, the session or patch was bad): ok:false.
 * Texts as in the 0.171.0 binary; "aborted by user" (Esc on an approval, or an interrupt) may
 * follow a "Wall time" line, an MCP call's text a "Wall time … Output:" part.
 */
const TOOL_FAILED = new RegExp(
  '^(?:Wall time: [^\\n]*\\n)?(?:Output:\\n)?(?:' +
    [
      'aborted by user\\b',
      '(?:exec command|patch) rejected by user',
      '[^\\n]*; rejected by user approval settings',
      '`\\w+` requires an explicit ',
      'failed to parse function arguments',
      'unsupported call: ',
      'unknown process id ',
      'write_stdin failed: ',
      'stdin is closed for this session',
      'apply_patch verification failed',
      'sandbox denied exec error',
      '\\w+ is unavailable in ', // "request_user_input is unavailable in Default mode"
      // an MCP tool call the user cancelled on its approval ("Cancel this tool call"), or refused
      'user (?:cancelled|canceled|rejected) MCP tool call',
      'MCP tool call (?:blocked|requires approval|cancelled)',
      'tool call (?:rejected|was cancelled)\\b',
    ].join('|') +
    ')',
  'i',
)

function outputText(output: unknown): string {
  if (typeof output === 'string') return output
  if (Array.isArray(output)) {
    const parts: string[] = []
    for (const c of output) {
      if (!isObj(c)) continue
      if (typeof c.text === 'string') parts.push(c.text)
      else if (c.type === 'input_image') parts.push('[image]')
    }
    return parts.join('\n')
  }
  if (isObj(output) && typeof output.content === 'string') return output.content
  return ''
}

/** ok and the text worth showing, from the plain-text (or legacy JSON) forms codex writes. */
function readOutput(raw: string): { ok: boolean; text: string } {
  const t = raw.trimStart()
  if (t.startsWith('{')) {
    try {
      const j: unknown = JSON.parse(t)
      if (isObj(j)) {
        if (typeof j.output === 'string') {
          const code = isObj(j.metadata) ? j.metadata.exit_code : undefined
          return { ok: code === undefined || code === 0, text: j.output }
        }
        if (isObj(j.answers)) return { ok: true, text: answersText(j.answers) }
        if (isObj(j.permissions)) return grantText(j.permissions, j.scope)
      }
    } catch {
      // plain text after all
    }
  }
  let ok = !TOOL_FAILED.test(raw) && !/(?:^|\n)aborted by user\b/.test(raw)
  const exited = /(?:^|\n)Process exited with code (-?\d+)/.exec(raw) ?? /^Exit code: (-?\d+)/.exec(raw)
  if (exited && exited[1] !== '0') ok = false
  const at = raw.indexOf('\nOutput:\n')
  const text = at >= 0 && /^(?:Chunk ID|Exit code|Wall time):/.test(raw) ? raw.slice(at + '\nOutput:\n'.length) : raw.replace(/^Wall time: [^\n]*\n/, '') // "Wall time: 3.2 seconds\naborted by user"
  return { ok, text: text.replace(/\n$/, '') }
}

/**
 * request_permissions' answer: what was granted ({network: {enabled}, file_system: {read,
 * write}}, null for none) and for how long. Nothing granted (the user declined) is ok:false.
 */
function grantText(perms: Obj, scope: unknown): { ok: boolean; text: string } {
  const parts: string[] = []
  if (isObj(perms.network) && perms.network.enabled === true) parts.push('network')
  const fs = isObj(perms.file_system) ? perms.file_system : {}
  for (const kind of ['read', 'write'] as const) {
    const paths = Array.isArray(fs[kind]) ? (fs[kind] as unknown[]).filter((x) => typeof x === 'string') : []
    if (paths.length) parts.push(`${kind} ${paths.join(', ')}`)
  }
  if (!parts.length) return { ok: false, text: 'No permissions granted' }
  return { ok: true, text: `Granted${typeof scope === 'string' ? ` for the ${scope}` : ''}: ${parts.join('; ')}` }
}

/** request_user_input's answers: "new_name: greet_user". */
function answersText(answers: Obj): string {
  const out: string[] = []
  for (const [id, a] of Object.entries(answers)) {
    const list = isObj(a) && Array.isArray(a.answers) ? a.answers.filter((x) => typeof x === 'string') : []
    out.push(`${id}: ${list.join(', ')}`)
  }
  return out.join('\n')
}

// ── a command's result after its abort ───────────────────────────────────────

const ABORTED = /^(?:Wall time: [^\n]*\n)?aborted by user\b/

/** The call id a record reports aborted by an interrupt or a declined approval ("aborted by user"), else undefined. */
export function abortedCallOf(rec: Obj): string | undefined {
  const p = rec.payload
  if (rec.type !== 'response_item' || !isObj(p) || (p.type !== 'function_call_output' && p.type !== 'custom_tool_call_output')) return undefined
  const callId = str(p.call_id)
  return callId && ABORTED.test(outputText(p.output)) ? callId : undefined
}

/** What a later result of an aborted call says first: it is not a success. */
export const AFTER_ABORT = 'Finished after it was aborted'

/**
 * A line's drafts once the calls aborted before it (call id → offset of its abort) are known:
 * a successful result at a later offset for an aborted call reads ok:false, its output after
 * AFTER_ABORT. A failed one already reads as it should (and a rollout that reuses the call
 * id, aborting it again, keeps its "aborted by user" as it is).
 */
export function afterAbort(drafts: Draft[], offset: number, abortedAt: ReadonlyMap<string, number>): Draft[] {
  if (abortedAt.size === 0) return drafts
  return drafts.map((d) => {
    const r = d.result
    if (d.kind !== 'tool_result' || !r?.ok) return d
    const at = abortedAt.get(r.for_id)
    if (at === undefined || at >= offset) return d
    const result = cappedResult(r.for_id, false, r.output_summary ? `${AFTER_ABORT}:\n${r.output_summary}` : AFTER_ABORT, r.diff)
    if (r.truncated) result.truncated = true
    return { ...d, result }
  })
}

// ── building ─────────────────────────────────────────────────────────────────

type Head = Pick<Draft, 'ts'>

function headOf(rec: Obj): Head {
  const ts = isoTime(rec.timestamp)
  return ts ? { ts } : {}
}

/** The record's own id where it has one (msg_…, fc_…, the item's id), for readable entry ids. */
function idOf(rec: Obj): string | undefined {
  const p = isObj(rec.payload) ? rec.payload : undefined
  if (!p) return undefined
  const id = str(p.id) ?? (isObj(p.item) ? str(p.item.id) : undefined)
  return id && /^[\w.:-]{1,80}$/.test(id) ? id : undefined
}

function buildSlot(slot: Slot, id: string, head: Head): Draft {
  try {
    switch (slot.as) {
      case 'text':
        return { id, ...head, role: slot.role, kind: slot.kind, text: capBody(slot.text), parsed: true }
      case 'fixed':
        return { id, ...head, role: slot.role, kind: slot.kind, text: slot.text, parsed: true }
      case 'call':
        return callDraft(slot, id, head)
      case 'output':
        return outputDraft(slot.callId, slot.output, id, head)
      case 'command':
        return commandDraft(slot.item, id, head)
      case 'file_change':
        return fileChangeDraft(slot.item, id, head)
    }
  } catch {
    // fall through: a build that fails is still one entry, so the count holds
  }
  return { id, ...head, role: 'system', kind: 'message', text: '[unreadable record]', parsed: false }
}

function parseArgs(args: unknown): unknown {
  if (typeof args !== 'string') return args
  try {
    return JSON.parse(args)
  } catch {
    return args
  }
}

/** A shell argv as one command line: ["bash","-lc","X"] → X. */
function argvText(v: unknown): string | undefined {
  if (typeof v === 'string') return v
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return undefined
  const argv = v as string[]
  if (argv.length === 3 && /(?:^|\/)(?:ba|z)?sh$/.test(argv[0]) && /^-l?c$/.test(argv[1])) return argv[2]
  return argv.join(' ')
}

function callDraft(slot: Extract<Slot, { as: 'call' }>, id: string, head: Head): Draft {
  const { callId, name } = slot
  const args = parseArgs(slot.args)
  const a = isObj(args) ? args : {}
  if (name === 'update_plan') {
    return { id, ...head, role: 'assistant', kind: 'tool_call', tool: planTool(callId, a), parsed: true }
  }
  const tool: ToolCall = { id: callId, name, title: name }
  const command =
    name === 'exec_command' ? str(a.cmd) : name === 'shell' || name === 'local_shell' || name === 'shell_command' ? argvText(a.command) : undefined
  if (command !== undefined) {
    tool.command = command
    tool.input_summary = oneLine(command)
    const why = str(a.justification)
    if (why) tool.subtitle = oneLine(why)
  } else if (name === 'apply_patch') {
    const patch = typeof args === 'string' ? args : (str(a.input) ?? '')
    const files = patchFiles(patch)
    if (files.length) {
      tool.file = basename(files[0].path)
      tool.input_summary = oneLine(files.map((f) => `${f.op} ${f.path}${f.moveTo ? ` → ${f.moveTo}` : ''}`).join(', '))
    } else tool.input_summary = oneLine(patch)
    return { id, ...head, role: slot.by, kind: 'tool_call', tool: withPreviewDiff(tool, patchDiff(files)), parsed: true }
  } else if (name === 'write_stdin') {
    // what was typed, quoted with its escapes: "codex\n" is a name and Enter, "\u0003" is ctrl+c
    const chars = str(a.chars)
    tool.input_summary = oneLine(`session ${String(a.session_id ?? '?')}${chars ? `: ${JSON.stringify(chars)}` : ''}`)
  } else if (name === 'request_user_input' && Array.isArray(a.questions)) {
    tool.input_summary = oneLine(
      a.questions
        .map((q) => (isObj(q) ? (str(q.question) ?? '') : ''))
        .filter(Boolean)
        .join(' · '),
    )
  } else if (name === 'request_permissions' && isObj(a.permissions)) {
    const asked = grantText(a.permissions, undefined)
    tool.input_summary = oneLine(asked.ok ? asked.text.replace(/^Granted: /, '') : '')
    const why = str(a.reason)
    if (why) tool.subtitle = oneLine(why)
  } else if (name === 'view_image' && typeof a.path === 'string') {
    tool.file = basename(a.path)
    tool.input_summary = oneLine(a.path)
  } else {
    tool.input_summary = inputSummary(args ?? {})
  }
  if (!tool.file) delete tool.file
  return { id, ...head, role: slot.by, kind: 'tool_call', tool, parsed: true }
}

const PLAN_MARK: Record<string, string> = { completed: '✔', in_progress: '□', pending: '□' }

/** update_plan as codex draws it: "Updated Plan · 1/3 complete", one row per step. */
function planTool(callId: string, a: Obj): ToolCall {
  const steps = Array.isArray(a.plan) ? a.plan.filter(isObj) : []
  const done = steps.filter((s) => s.status === 'completed').length
  const title = `Updated Plan · ${done}/${steps.length} complete`
  const tool: ToolCall = { id: callId, name: 'update_plan', title }
  const why = str(a.explanation)
  if (why) tool.subtitle = oneLine(why)
  tool.input_summary = oneLine(
    steps.map((s) => `${PLAN_MARK[String(s.status)] ?? '□'} ${str(s.step) ?? ''}${s.status === 'in_progress' ? ' (in progress)' : ''}`).join(' · '),
  )
  return tool
}

function outputDraft(callId: string, output: unknown, id: string, head: Head): Draft {
  const { ok, text } = readOutput(outputText(output))
  return { id, ...head, role: 'user', kind: 'tool_result', result: cappedResult(callId, ok, text), parsed: true }
}

function commandDraft(item: Obj, id: string, head: Head): Draft {
  const code = typeof item.exit_code === 'number' ? item.exit_code : undefined
  const ok = code === 0 || (code === undefined && item.status === 'completed')
  const out = str(item.aggregated_output) ?? [str(item.stdout), str(item.stderr)].filter(Boolean).join('\n')
  // a tty command's output has CRLF line ends
  const shown = out ? out.replace(/\r\n/g, '\n').replace(/\r?\n$/, '') : code !== undefined && code !== 0 ? `exit code ${code}` : ''
  return { id, ...head, role: 'user', kind: 'tool_result', result: cappedResult(item.id as string, ok, shown), parsed: true }
}

function fileChangeDraft(item: Obj, id: string, head: Head): Draft {
  const out = [str(item.stdout), str(item.stderr)]
    .filter((s) => s?.trim())
    .join('\n')
    .replace(/\n$/, '')
  const result = cappedResult(item.id as string, item.status === 'completed', out, appliedDiff(item.changes))
  return { id, ...head, role: 'user', kind: 'tool_result', result, parsed: true }
}

// ── apply_patch ──────────────────────────────────────────────────────────────

interface PatchFile {
  op: 'A' | 'M' | 'D'
  path: string
  /** Update with "*** Move to:": the new path */
  moveTo?: string
  /** Add: the file's lines; Update: the hunks' lines (" ", "-", "+" prefixed, "@@" separators) */
  lines: string[]
}

/** The files of a "*** Begin Patch" envelope, in order. */
export function patchFiles(patch: string): PatchFile[] {
  const files: PatchFile[] = []
  let cur: PatchFile | undefined
  for (const l of patch.split('\n')) {
    const m = /^\*\*\* (Add|Update|Delete) File: (.+)$/.exec(l)
    if (m) {
      cur = { op: m[1] === 'Add' ? 'A' : m[1] === 'Delete' ? 'D' : 'M', path: m[2].trim(), lines: [] }
      files.push(cur)
      continue
    }
    const move = /^\*\*\* Move to: (.+)$/.exec(l)
    if (move && cur) cur.moveTo = move[1].trim()
    if (l === '*** End Patch') cur = undefined
    if (!cur || l.startsWith('*** ')) continue // Begin Patch, Move to, End of File
    cur.lines.push(l)
  }
  return files
}

/** The envelope as a unified diff (hunks without line numbers are numbered from their own start). */
function patchDiff(files: readonly PatchFile[]): string | undefined {
  const parts: string[] = []
  for (const f of files) {
    let body = ''
    if (f.op === 'A') body = previewDiff('', f.lines.map((l) => l.replace(/^\+/, '')).join('\n') + '\n')
    else if (f.op === 'M') {
      const hunks: string[][] = [[]]
      for (const l of f.lines) {
        if (l.startsWith('@@')) hunks.push([])
        else hunks[hunks.length - 1].push(l)
      }
      body = hunks
        .filter((h) => h.length)
        .map((h) => {
          const before = h.filter((l) => !l.startsWith('+')).map((l) => l.slice(1))
          const after = h.filter((l) => !l.startsWith('-')).map((l) => l.slice(1))
          return previewDiff(before.join('\n') + '\n', after.join('\n') + '\n')
        })
        .filter(Boolean)
        .join('\n')
    }
    if (!body && f.op !== 'D') continue
    parts.push(files.length > 1 || f.op === 'D' ? fileHeader(f.op, f.path) + body : body)
  }
  const s = parts.join('\n').replace(/\n$/, '')
  return s || undefined
}

function fileHeader(op: 'A' | 'M' | 'D', path: string): string {
  return `--- ${op === 'A' ? '/dev/null' : `a/${path}`}\n+++ ${op === 'D' ? '/dev/null' : `b/${path}`}\n`
}

/** FileChange.changes ({<abs path>: {type: add|update|delete, …}}) as one unified diff. */
function appliedDiff(changes: unknown): string | undefined {
  if (!isObj(changes)) return undefined
  const entries = Object.entries(changes).filter(([, c]) => isObj(c))
  const parts: string[] = []
  for (const [path, c] of entries as [string, Obj][]) {
    let body = ''
    let op: 'A' | 'M' | 'D' = 'M'
    if (c.type === 'add' && typeof c.content === 'string') {
      op = 'A'
      body = previewDiff('', c.content)
    } else if (c.type === 'delete') {
      op = 'D'
      body = typeof c.content === 'string' ? previewDiff(c.content, '') : ''
    } else if (typeof c.unified_diff === 'string') body = c.unified_diff.replace(/\n$/, '')
    const target = typeof c.move_path === 'string' && c.move_path ? `${path} → ${c.move_path}` : path
    parts.push(entries.length > 1 || op === 'D' || target !== path ? fileHeader(op, target) + body : body)
  }
  const s = parts.join('\n').replace(/\n$/, '')
  return s || undefined
}

// ── messages ─────────────────────────────────────────────────────────────────

/** Reasoning summary text (else its raw content), blocks joined. */
function reasoningText(p: Obj): string {
  const from = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is Obj => isObj(x) && typeof x.text === 'string').map((x) => x.text as string) : [])
  const summary = from(p.summary)
  const parts = summary.length ? summary : from(p.content)
  return parts.join('\n\n').trim()
}

/** "<proposed_plan>…</proposed_plan>" (Plan mode) as codex shows it: a titled block. */
function proposedPlan(text: string): string {
  const m = /<proposed_plan>\s*([\s\S]*?)\s*<\/proposed_plan>/.exec(text)
  if (!m) return text
  return (text.slice(0, m.index) + `**Proposed Plan**\n\n${m[1]}` + text.slice(m.index + m[0].length)).trim()
}

// ── resolution helpers (pure) ────────────────────────────────────────────────

/** `rollout-<local time>-<uuid>.jsonl` → the uuid (the thread id); undefined for another name. */
export function codexThreadIdFromPath(path: string): string | undefined {
  const m = /rollout-.*-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl(?:\.zst)?$/i.exec(basename(path))
  return m ? m[1].toLowerCase() : undefined
}

/** The cwd a rollout's first line (session_meta) records; undefined when it is not one. */
export function codexMetaCwd(firstLine: string): string | undefined {
  try {
    const r: unknown = JSON.parse(firstLine)
    if (isObj(r) && r.type === 'session_meta' && isObj(r.payload) && typeof r.payload.cwd === 'string') return r.payload.cwd
  } catch {
    // not a rollout header
  }
  return undefined
}

/** The timestamp of a rollout line (ms), when it has one. */
export function codexLineTime(line: string): number | undefined {
  const m = /"timestamp"\s*:\s*"([^"]+)"/.exec(line)
  if (!m) return undefined
  const t = Date.parse(m[1])
  return Number.isNaN(t) ? undefined : t
}
