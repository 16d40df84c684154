// opencode messages → entry drafts. Two shapes, one vocabulary:
//  - v2 "projected" SessionMessage (GET /api/session/<id>/message; the 2.x
//    session_message table): {id, type, time, …, content: (text|reasoning|tool)[]}
//  - 1.x message info + parts (GET /session/<id>/message, the SQLite message/part
//    tables, legacy storage/ JSON): {info:{id, role, time,…}, parts:[…]}
// Pure and never throws. Each normalizer also says, per draft, whether it is
// settled (will not change any more): the live tail emits only settled drafts.
import type { Draft, Role, ToolCall } from '../../entry'
import {
  basename,
  blocksText,
  capBody,
  cappedResult,
  inputSummary,
  isObj,
  isoTime,
  oneLine,
  previewDiff as snippetDiff,
  str,
  stripSingleFileHeaders,
  withPreviewDiff,
  type Obj,
} from '../../tool-summary'

/** A draft plus whether its content is final. */
export interface SettledDraft {
  draft: Draft
  settled: boolean
}

/** One 1.x message as the API, the SQLite tables and the JSON files hold it. */
export interface OpencodeLegacyMessage {
  info: unknown
  parts: unknown[]
}

/** Either shape; told apart by the presence of `info`. */
export type OpencodeRawMessage = unknown

const COMMAND_TOOLS = new Set(['bash', 'shell'])

// ---------------------------------------------------------------- shared

function toolCallFields(callId: string, name: string, input: unknown, title?: string): ToolCall {
  const tool: ToolCall = { id: callId, name, title: name }
  const a = isObj(input) ? input : {}
  const path = str(a.filePath) ?? str(a.path) ?? str(a.file_path)
  const description = str(a.description)
  if (COMMAND_TOOLS.has(name) && typeof a.command === 'string') {
    tool.command = a.command
    tool.input_summary = oneLine(a.command)
  } else if (path) {
    const file = basename(path)
    if (file) tool.file = file
    tool.input_summary = oneLine(path)
  } else {
    tool.input_summary = inputSummary(input ?? {})
  }
  const subtitle = description ?? (title && title !== tool.command && title !== name ? title : undefined)
  if (subtitle) tool.subtitle = oneLine(subtitle)
  return withPreviewDiff(tool, previewDiff(name, a))
}

/** edit {oldString,newString}, multiedit {edits[]}, write {content}: the diff the call asks for. */
function previewDiff(name: string, a: Obj): string | undefined {
  if (name === 'edit' || name === 'multiedit') {
    const edits: unknown[] = Array.isArray(a.edits) ? a.edits : [a]
    const parts: string[] = []
    for (const e of edits) {
      if (!isObj(e)) continue
      const before = str(e.oldString) ?? str(e.oldText)
      const after = str(e.newString) ?? str(e.newText)
      if (before === undefined || after === undefined) continue
      const d = snippetDiff(before, after)
      if (d) parts.push(d)
    }
    return parts.length ? parts.join('\n') : undefined
  }
  if (name === 'write' && typeof a.content === 'string') return snippetDiff('', a.content) || undefined
  return undefined
}

/** The applied diff a tool's metadata records: 1.x diff / filediff.patch, 2.x files[].patch. */
function appliedDiff(meta: unknown): string | undefined {
  if (!isObj(meta)) return undefined
  if (typeof meta.diff === 'string' && meta.diff.trim() !== '') return stripSingleFileHeaders(meta.diff)
  if (isObj(meta.filediff) && typeof meta.filediff.patch === 'string') return stripSingleFileHeaders(meta.filediff.patch)
  if (Array.isArray(meta.files)) {
    const patches = meta.files.flatMap((f) => (isObj(f) && typeof f.patch === 'string' && f.patch !== '' ? [f.patch] : []))
    if (patches.length === 1) return stripSingleFileHeaders(patches[0])
    if (patches.length > 1) return patches.map((p) => p.replace(/\n$/, '')).join('\n')
  }
  return undefined
}

function message(id: string, role: Role, text: string, ts: string | undefined, parent?: string): Draft {
  const d: Draft = { id, role, kind: 'message', text: capBody(text), parsed: true }
  return withHead(d, ts, parent)
}

function withHead(d: Draft, ts: string | undefined, parent: string | undefined): Draft {
  // Key order as in the contract's examples: id, parent_id, ts, …
  const { id, ...rest } = d
  return { id, ...(parent ? { parent_id: parent } : {}), ...(ts ? { ts } : {}), ...rest }
}

function unplacedMessage(id: string, raw: unknown): Draft {
  let text: string
  try {
    text = JSON.stringify(raw) ?? String(raw)
  } catch {
    text = String(raw)
  }
  if (text.length > 2000) text = text.slice(0, 2000) + '…'
  return { id, role: 'system', kind: 'message', text, parsed: false }
}

// ---------------------------------------------------------------- v2 projection

/** One projected v2 SessionMessage → drafts. */
export function normalizeOpencodeMessage(m: unknown): Draft[] {
  return settledV2(m, 0).map((s) => s.draft)
}

function settledV2(m: unknown, index: number): SettledDraft[] {
  try {
    return v2(m, index)
  } catch {
    return [{ draft: unplacedMessage(`message@${index}#0`, m), settled: true }]
  }
}

function v2(m: unknown, index: number): SettledDraft[] {
  if (!isObj(m) || typeof m.id !== 'string' || typeof m.type !== 'string') {
    return [{ draft: unplacedMessage(isObj(m) && typeof m.id === 'string' ? `${m.id}#0` : `message@${index}#0`, m), settled: true }]
  }
  const mid = m.id
  const time = isObj(m.time) ? m.time : {}
  const ts = isoTime(time.created)
  const done = (d: Draft): SettledDraft => ({ draft: d, settled: true })
  switch (m.type) {
    case 'user': {
      const out: SettledDraft[] = []
      if (typeof m.text === 'string' && m.text !== '') out.push(done(message(`${mid}#0`, 'user', m.text, ts)))
      if (Array.isArray(m.files)) {
        m.files.forEach((f, k) => {
          if (!isObj(f)) return
          out.push(
            done(
              withHead(
                { id: `${mid}#${k + 1}`, role: 'user', kind: 'attachment', text: attachmentText(str(f.mime), str(f.name)), parsed: true },
                ts,
                undefined,
              ),
            ),
          )
        })
      }
      return out
    }
    case 'synthetic':
    case 'system':
    case 'skill':
      return typeof m.text === 'string' && m.text !== '' ? [done(message(`${mid}#0`, 'system', m.text, ts))] : []
    case 'compaction': {
      const running = m.status === 'running'
      const text =
        m.status === 'failed'
          ? `Compaction failed${typeof m.error === 'string' ? `: ${m.error}` : ''}`
          : `Context compacted${typeof m.summary === 'string' && m.summary ? `\n\n${m.summary}` : ''}`
      return [{ draft: message(`${mid}#0`, 'system', text, ts), settled: !running }]
    }
    case 'shell':
      return v2Shell(m, mid, ts, time)
    case 'assistant':
      return v2Assistant(m, mid, ts, time)
    case 'agent-switched':
    case 'model-switched':
    case 'location-switched':
      return []
    default:
      return [{ draft: unplacedMessage(`${mid}#0`, m), settled: true }]
  }
}

function attachmentText(mime: string | undefined, name: string | undefined): string {
  if (mime?.startsWith('image/')) return '[image]'
  return name ? `[file: ${name}]` : '[file]'
}

/** A shell command the user ran: a call and, once it ended, its result. */
function v2Shell(m: Obj, mid: string, ts: string | undefined, time: Obj): SettledDraft[] {
  const command = str(m.command) ?? ''
  const callId = str(m.callID) ?? str(m.shellID) ?? mid
  const call = withHead(
    {
      id: `${mid}#0`,
      role: 'user',
      kind: 'tool_call',
      tool: { id: callId, name: 'shell', title: 'shell', command, input_summary: oneLine(command) },
      parsed: true,
    },
    ts,
    undefined,
  )
  const ended = time.completed !== undefined || (typeof m.status === 'string' && m.status !== 'running')
  if (!ended) return [{ draft: call, settled: true }]
  const output = typeof m.output === 'string' ? m.output : isObj(m.output) ? (str(m.output.output) ?? '') : ''
  const ok = m.status === undefined ? m.exit === undefined || m.exit === 0 : m.status === 'exited' && (m.exit === undefined || m.exit === 0)
  const result = withHead(
    { id: `${mid}#1`, role: 'user', kind: 'tool_result', result: cappedResult(callId, ok, output, undefined), parsed: true },
    isoTime(time.completed) ?? ts,
    undefined,
  )
  return [
    { draft: call, settled: true },
    { draft: result, settled: true },
  ]
}

function v2Assistant(m: Obj, mid: string, ts: string | undefined, time: Obj): SettledDraft[] {
  const content = Array.isArray(m.content) ? m.content : []
  const complete = time.completed !== undefined || m.error !== undefined
  const out: SettledDraft[] = []
  content.forEach((b, k) => {
    if (!isObj(b)) return
    // Position-stable ids: block k owns #2k (its body or call) and #2k+1 (its result),
    // so a result appearing later never shifts the ids of the blocks after it.
    const id0 = `${mid}#${2 * k}`
    // A text block is final once the message is, or once a later block exists.
    const blockDone = complete || k < content.length - 1 || (isObj(b.time) && b.time.completed !== undefined) || b.state === 'completed'
    if (b.type === 'text' && typeof b.text === 'string' && b.text.trim() !== '') {
      out.push({ draft: message(id0, 'assistant', b.text, ts), settled: blockDone })
    } else if (b.type === 'reasoning' && typeof b.text === 'string' && b.text.trim() !== '') {
      out.push({ draft: withHead({ id: id0, role: 'assistant', kind: 'thinking', text: capBody(b.text), parsed: true }, ts, undefined), settled: blockDone })
    } else if (b.type === 'tool' && typeof b.name === 'string') {
      out.push(...v2Tool(b, id0, `${mid}#${2 * k + 1}`, ts, complete))
    }
  })
  if (m.error !== undefined) {
    const e = isObj(m.error) ? m.error : {}
    const text = str(e.message) ?? str(e.type) ?? 'Error'
    out.push({ draft: message(`${mid}#${2 * content.length}`, 'system', text, isoTime(time.completed) ?? ts), settled: true })
  }
  return out
}

function v2Tool(b: Obj, callEntryId: string, resultEntryId: string, ts: string | undefined, messageDone: boolean): SettledDraft[] {
  const callId = str(b.id) ?? callEntryId
  const name = b.name as string
  const state = isObj(b.state) ? b.state : {}
  const btime = isObj(b.time) ? b.time : {}
  const status = str(state.status)
  // streaming/pending inputs are partial JSON: the call is shown once it runs.
  const inputReady = status === 'running' || status === 'completed' || status === 'error'
  const call = withHead(
    { id: callEntryId, role: 'assistant', kind: 'tool_call', tool: toolCallFields(callId, name, inputReady ? state.input : {}), parsed: true },
    isoTime(btime.created) ?? ts,
    undefined,
  )
  const out: SettledDraft[] = [{ draft: call, settled: inputReady || messageDone }]
  if (status === 'completed' || status === 'error') {
    const meta = state.structured ?? state.metadata
    let output = toolContentText(state.content)
    if (status === 'error') {
      const e = isObj(state.error) ? (str(state.error.message) ?? str(state.error.type)) : str(state.error)
      if (e) output = output ? `${e}\n${output}` : e
    }
    const ok = status === 'completed' && !(isObj(meta) && typeof meta.exit === 'number' && meta.exit !== 0)
    out.push({
      draft: withHead(
        { id: resultEntryId, role: 'user', kind: 'tool_result', result: cappedResult(callId, ok, output, appliedDiff(meta)), parsed: true },
        isoTime(btime.completed) ?? ts,
        undefined,
      ),
      settled: true,
    })
  }
  return out
}

function toolContentText(content: unknown): string {
  return blocksText(content, (c) => (c.type === 'file' ? attachmentText(str(c.mime), str(c.name)) : undefined))
}

// ---------------------------------------------------------------- 1.x info + parts

/** One 1.x message (info + its parts) → drafts. Parts are taken in id order. */
export function normalizeOpencodeLegacy(info: unknown, parts: unknown[]): Draft[] {
  return settledLegacy(info, parts, 0).map((s) => s.draft)
}

function settledLegacy(info: unknown, parts: unknown, index: number): SettledDraft[] {
  try {
    return legacy(info, Array.isArray(parts) ? parts : [], index)
  } catch {
    return [{ draft: unplacedMessage(`message@${index}#0`, { info, parts }), settled: true }]
  }
}

function legacy(info: unknown, parts: unknown[], index: number): SettledDraft[] {
  if (!isObj(info) || typeof info.id !== 'string' || (info.role !== 'user' && info.role !== 'assistant')) {
    const id = isObj(info) && typeof info.id === 'string' ? `${info.id}#0` : `message@${index}#0`
    return [{ draft: unplacedMessage(id, info), settled: true }]
  }
  const mid = info.id
  const role: Role = info.role
  const time = isObj(info.time) ? info.time : {}
  const ts = isoTime(time.created)
  const parent = str(info.parentID)
  const complete = role === 'user' || time.completed !== undefined || info.error !== undefined
  const sorted = parts
    .filter(isObj)
    .filter((p) => typeof p.id === 'string')
    .sort((a, b) => ((a.id as string) < (b.id as string) ? -1 : (a.id as string) > (b.id as string) ? 1 : 0))
  const out: SettledDraft[] = []
  sorted.forEach((p, k) => {
    const pid = p.id as string
    const ptime = isObj(p.time) ? p.time : {}
    const pts = isoTime(ptime.start) ?? ts
    // Text is final once the part has an end time, the message completed, or a later part exists.
    const partDone = complete || ptime.end !== undefined || k < sorted.length - 1
    switch (p.type) {
      case 'text': {
        if (p.ignored === true || typeof p.text !== 'string' || p.text.trim() === '') return
        const r: Role = p.synthetic === true ? 'system' : role
        out.push({ draft: message(`${pid}#0`, r, p.text, pts, parent), settled: partDone })
        return
      }
      case 'reasoning':
        if (typeof p.text !== 'string' || p.text.trim() === '') return
        out.push({
          draft: withHead({ id: `${pid}#0`, role: 'assistant', kind: 'thinking', text: capBody(p.text), parsed: true }, pts, parent),
          settled: partDone,
        })
        return
      case 'file':
        out.push({
          draft: withHead({ id: `${pid}#0`, role, kind: 'attachment', text: attachmentText(str(p.mime), str(p.filename)), parsed: true }, pts, parent),
          settled: true,
        })
        return
      case 'tool':
        out.push(...legacyTool(p, pid, ts, parent, complete))
        return
      case 'compaction':
        out.push({ draft: message(`${pid}#0`, 'system', 'Context compacted', pts, parent), settled: true })
        return
      default:
        // step-start, step-finish, snapshot, patch, agent, retry, subtask: bookkeeping.
        return
    }
  })
  if (info.error !== undefined) {
    const e = isObj(info.error) ? info.error : {}
    const data = isObj(e.data) ? e.data : {}
    const name = str(e.name)
    const text = str(data.message) ? (name && name !== 'UnknownError' ? `${name}: ${data.message}` : (data.message as string)) : (name ?? 'Error')
    out.push({ draft: message(`${mid}#0`, 'system', text, isoTime(time.completed) ?? ts, parent), settled: true })
  }
  return out
}

function legacyTool(p: Obj, pid: string, ts: string | undefined, parent: string | undefined, messageDone: boolean): SettledDraft[] {
  const name = str(p.tool) ?? 'tool'
  const callId = str(p.callID) ?? pid
  const state = isObj(p.state) ? p.state : {}
  const st = isObj(state.time) ? state.time : {}
  const status = str(state.status)
  const inputReady = status === 'running' || status === 'completed' || status === 'error'
  const call = withHead(
    { id: `${pid}#0`, role: 'assistant', kind: 'tool_call', tool: toolCallFields(callId, name, inputReady ? state.input : {}, str(state.title)), parsed: true },
    isoTime(st.start) ?? ts,
    parent,
  )
  const out: SettledDraft[] = [{ draft: call, settled: inputReady || messageDone }]
  if (status === 'completed' || status === 'error') {
    const meta = isObj(state.metadata) ? state.metadata : {}
    let output: string
    let ok: boolean
    if (status === 'completed') {
      output = str(state.output) ?? ''
      // A command that exited non-zero is a failed step, as pi and Claude Code report it.
      ok = !(typeof meta.exit === 'number' && meta.exit !== 0)
    } else {
      output = str(state.error) ?? ''
      if (typeof meta.output === 'string' && meta.output !== '') output = `${output}\n${meta.output}`
      ok = false
    }
    out.push({
      draft: withHead(
        { id: `${pid}#1`, role: 'user', kind: 'tool_result', result: cappedResult(callId, ok, output, appliedDiff(meta)), parsed: true },
        isoTime(st.end) ?? ts,
        parent,
      ),
      settled: true,
    })
  }
  return out
}

// ---------------------------------------------------------------- either shape

/** True for the 1.x {info, parts} shape. */
export function isLegacyMessage(m: unknown): m is OpencodeLegacyMessage {
  return isObj(m) && 'info' in m
}

/** The message id of either shape (undefined when it has none). */
export function opencodeMessageId(m: unknown): string | undefined {
  if (isLegacyMessage(m)) return isObj(m.info) ? str(m.info.id) : undefined
  return isObj(m) ? str(m.id) : undefined
}

/**
 * Whether a message will not change any more: assistant turns (and v2 shell commands,
 * running compactions) are settled once time.completed is set or they failed;
 * everything else is written once.
 */
export function isSettledMessage(m: unknown): boolean {
  if (isLegacyMessage(m)) {
    const info = m.info
    if (!isObj(info)) return true
    if (info.role !== 'assistant') return true
    return (isObj(info.time) && info.time.completed !== undefined) || info.error !== undefined
  }
  if (!isObj(m)) return true
  const time = isObj(m.time) ? m.time : {}
  switch (m.type) {
    case 'assistant':
      return time.completed !== undefined || m.error !== undefined
    case 'shell':
      return time.completed !== undefined || (typeof m.status === 'string' && m.status !== 'running')
    case 'compaction':
      return m.status !== 'running'
    default:
      return true
  }
}

/** Drafts of either shape, each with whether it is final. `index` names an id-less message. */
export function settledDrafts(m: unknown, index = 0): SettledDraft[] {
  return isLegacyMessage(m) ? settledLegacy(m.info, m.parts, index) : settledV2(m, index)
}

/** Drafts of a whole session (messages oldest first), either shape. */
export function normalizeOpencodeMessages(messages: readonly unknown[]): Draft[] {
  return messages.flatMap((m, i) => settledDrafts(m, i).map((s) => s.draft))
}
