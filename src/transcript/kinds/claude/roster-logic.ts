// The subagent roster, decided from facts (docs/agent-pane-api.md, "Subagents").
// Pure: the caller lists <session>/subagents/, reads the meta files and folds
// the parent transcript line by line as it grows; this module only decides.
//
// Incremental by construction: parentFactsFromLine() extracts what one parent
// line says, ParentFacts (a mutable accumulator) folds those in file order, and
// buildRoster() is a function of the file listing and the accumulator — so a
// grown parent is folded from the last offset, never re-scanned.
//
// How `done` is decided for one agent (first rule that applies):
//  1. A <task-notification> naming the agent (by <task-id> = agent_id) with a
//     <status>: the LAST such status wins, and it wins over the tool result
//     (a resumed agent reports "running" after its first call already returned).
//     Status-less notices (monitor events) are ignored.
//  2. The tool_result of its spawning call (joined on tool_use_id), when that
//     result is the completion:
//       - the result itself says so: toolUseResult.status "completed" without
//         isAsync (what 2.1.197 writes for a synchronous agent that did NOT set
//         run_in_background — the corpus' sync agents; the real file wins over
//         the "absent means async" default), or the result is an error;
//       - the result says "async_launched"/isAsync → not a completion;
//       - otherwise (no toolUseResult: absent on many results) the spawning
//         call decides: run_in_background === false → completes; true or
//         absent → async, only a notification completes it.
//  3. Otherwise: still working.
//
// Labels and the tool_use_id join, for one agent file:
//  - from its agent-<id>.meta.json (2.1.2xx writes one per agent);
//  - without meta (2.1.3x never wrote any): tool_use_id from the parent's
//    `progress` records of type agent_progress (data.agentId ↔ parentToolUseID,
//    written from the agent's first message on, so known while it still runs)
//    or from the spawning call's result (toolUseResult.agentId, once it ends);
//    agent_type and description from that spawning Task/Agent call's input
//    (subagent_type, which Claude Code defaults to general-purpose when
//    omitted, and description).
import type { Subagent } from '../../roster'
import { isObj, type Obj } from '../../tool-summary'
import { isTaskNotificationText, parseTaskNotifications } from './normalize-wrappers'

/** What the caller knows about one agent-<id>.* pair in the subagents dir. */
export interface SubagentFileFacts {
  agentId: string
  /** parsed meta.json; undefined if unreadable or absent */
  meta?: unknown
  /** false when the meta file is missing or its JSON did not parse */
  metaReadable: boolean
  /** an agent-<id>.jsonl exists (without it the row cannot open: dropped) */
  hasJsonl: boolean
  /** mtime of the .jsonl, unix ms */
  lastWriteMs?: number
}

/** Tool names that spawn a subagent (renamed Task → Agent across builds). */
export const SPAWN_TOOL_NAMES: ReadonlySet<string> = new Set(['Agent', 'Task'])
/**
 * Every line that can change the roster contains one of these (ParentFacts.mayMatter
 * is the exact test); once a spawn is known, a `tool_result` naming its id too.
 * Lets a reader skip other lines as raw bytes, without decoding them.
 */
export const ROSTER_LINE_MARKERS: readonly string[] = ['task-notification', 'agentId', ...[...SPAWN_TOOL_NAMES].map((n) => `"${n}"`)]
export const RESULT_MARKER = 'tool_result'
/** A text that may be a task notification (isTaskNotificationText decides): it starts with a tag. */
const MAY_BE_NOTICE = /^\s*</
/** A line that may hold a spawning call: `"name":"Agent"` (any spacing). */
const SPAWN_NAME_RE = new RegExp(`"name"\\s*:\\s*"(?:${[...SPAWN_TOOL_NAMES].join('|')})"`)

/**
 * Agent files under subagents/ that are Claude Code's own machinery, not
 * delegations (docs/reference/claude-code.md §1.1): auto-compaction, prompt
 * suggestions, /btw side questions. Matched on the agent id (file name
 * agent-<id>.jsonl).
 */
export const INTERNAL_AGENT_ID_PATTERNS: readonly RegExp[] = [/^acompact[-_]/, /^aprompt_suggestion[-_]/, /^aside_question[-_]/]

/** Notification statuses that mean "working again"; any other status ends the agent
 *  (completed, failed, killed, stopped, and unknown future terminal words). */
export const RUNNING_STATUSES: ReadonlySet<string> = new Set(['running', 'pending', 'in_progress', 'resumed', 'started'])

export interface SpawnFact {
  toolUseId: string
  /** input.run_in_background: true, false, or undefined when absent */
  runInBackground?: boolean
  /** input.subagent_type; undefined when absent (Claude Code then runs general-purpose) */
  agentType?: string
  /** input.description */
  description?: string
}

/** The agent Claude Code runs when a spawning call names no subagent_type. */
export const DEFAULT_AGENT_TYPE = 'general-purpose'

/** An agent id tied to its spawning call by a `progress` agent_progress record (2.1.3x). */
export interface AgentLinkFact {
  agentId: string
  toolUseId: string
}

export interface SpawnResultFact {
  toolUseId: string
  isError: boolean
  /** 'sync' when the result says the agent completed, 'async' when it says launched, undefined when silent */
  says?: 'sync' | 'async'
  /** toolUseResult.agentId, when present */
  agentId?: string
}

export interface NoticeFact {
  agentIds: string[]
  status: string
  /** raw block text: the same notice is delivered twice (queue-operation, then user record) */
  raw: string
  /** true for the queue-operation copy, written first; its later delivery is then a repeat */
  queued: boolean
}

/** What one parent line contributes. Empty arrays for irrelevant lines. */
export interface LineFacts {
  spawns: SpawnFact[]
  results: SpawnResultFact[]
  notices: NoticeFact[]
  links: AgentLinkFact[]
}

const NONE: LineFacts = Object.freeze({ spawns: [], results: [], notices: [], links: [] }) as LineFacts

/** Extracts roster facts from one parent JSONL line. Pure; never throws. */
export function parentFactsFromLine(line: string): LineFacts {
  // Cheap pre-filter: most lines of a big transcript carry none of these.
  if (!line.includes('tool_use') && !line.includes('tool_result') && !line.includes('task-notification') && !line.includes('agent_progress')) return NONE
  let rec: unknown
  try {
    rec = JSON.parse(line)
  } catch {
    return NONE
  }
  if (!isObj(rec)) return NONE
  try {
    return factsOfRecord(rec)
  } catch {
    return NONE
  }
}

/** parentFactsFromLine for a line already parsed to an object: the same facts. Never throws. */
export function parentFactsFromRecord(rec: Obj): LineFacts {
  try {
    return factsOfRecord(rec)
  } catch {
    return NONE
  }
}

function factsOfRecord(rec: Obj): LineFacts {
  const facts: LineFacts = { spawns: [], results: [], notices: [], links: [] }
  if (rec.type === 'progress') {
    // 2.1.3x mirrors each subagent message into the parent, keyed to the spawning call.
    const data = isObj(rec.data) ? rec.data : undefined
    const toolUseId = rec.parentToolUseID
    if (data?.type === 'agent_progress' && typeof data.agentId === 'string' && data.agentId && typeof toolUseId === 'string' && toolUseId)
      facts.links.push({ agentId: data.agentId, toolUseId })
    return facts
  }
  if (rec.type === 'queue-operation') {
    // The notification lands here first (enqueue), then again as a user record.
    if (rec.operation === 'enqueue') addNotices(facts, rec.content, true)
    return facts
  }
  if (rec.type === 'attachment' && isObj(rec.attachment) && rec.attachment.type === 'queued_command') {
    addNotices(facts, rec.attachment.prompt, false)
    return facts
  }
  const msg = rec.message
  if (!isObj(msg)) return facts
  if (rec.type === 'assistant' && Array.isArray(msg.content)) {
    for (const b of msg.content) {
      if (!isObj(b) || b.type !== 'tool_use' || typeof b.id !== 'string' || typeof b.name !== 'string') continue
      if (!SPAWN_TOOL_NAMES.has(b.name)) continue
      const input = isObj(b.input) ? b.input : {}
      const rib = input.run_in_background
      const spawn: SpawnFact = { toolUseId: b.id, runInBackground: typeof rib === 'boolean' ? rib : undefined }
      if (typeof input.subagent_type === 'string' && input.subagent_type) spawn.agentType = input.subagent_type
      if (typeof input.description === 'string') spawn.description = input.description
      facts.spawns.push(spawn)
    }
  } else if (rec.type === 'user') {
    const origin = isObj(rec.origin) ? rec.origin.kind : undefined
    if (origin !== 'human') addNotices(facts, msg.content, false)
    if (Array.isArray(msg.content)) {
      const tur = isObj(rec.toolUseResult) ? rec.toolUseResult : undefined
      for (const b of msg.content) {
        if (!isObj(b) || b.type !== 'tool_result' || typeof b.tool_use_id !== 'string') continue
        const says =
          tur === undefined ? undefined : tur.isAsync === true || tur.status === 'async_launched' ? 'async' : tur.status === 'completed' ? 'sync' : undefined
        const agentId = tur && typeof tur.agentId === 'string' ? tur.agentId : undefined
        facts.results.push({ toolUseId: b.tool_use_id, isError: b.is_error === true, says, agentId })
      }
    }
  }
  return facts
}

/** Notifications from a string or the first text block of a content array. */
function addNotices(facts: LineFacts, content: unknown, queued: boolean): void {
  let text: string | undefined
  if (typeof content === 'string') text = content
  else if (Array.isArray(content)) {
    const first = content[0]
    if (isObj(first) && first.type === 'text' && typeof first.text === 'string') text = first.text
  }
  if (text === undefined || !isTaskNotificationText(text)) return
  for (const n of parseTaskNotifications(text)) {
    if (n.status === undefined || n.taskIds.length === 0) continue // status-less: completes nothing
    facts.notices.push({ agentIds: n.taskIds, status: n.status.toLowerCase(), raw: n.raw, queued })
  }
}

/**
 * The folded parent transcript. Mutable accumulator: add() each line's facts
 * in file order (addLine() does both steps). Memory grows with the number of
 * spawns, agent results and notifications, not with the file.
 */
export class ParentFacts {
  /** spawning calls by tool_use_id */
  readonly spawns = new Map<string, SpawnFact>()
  /** results of spawning calls (or results naming an agent) by tool_use_id */
  readonly results = new Map<string, SpawnResultFact>()
  /** last notified status per agent id */
  readonly lastStatus = new Map<string, string>()
  /** agent id → spawning tool_use_id, learnt from results and agent_progress records (for files without meta) */
  readonly toolUseOf = new Map<string, string>()
  /** queued notices not yet delivered, with their count (raw text → n) */
  private readonly pendingDelivery = new Map<string, number>()

  /**
   * Folds one parent line. Most lines of a long session are tool calls and
   * results of ordinary tools: only a line that could change the roster is
   * parsed (a spawning call, a result naming an agent or answering a known
   * spawn, a task-notification), so the first fold of a 100 MB parent costs a
   * substring scan, not a second JSON pass. Same facts as folding every line.
   */
  addLine(line: string): this {
    if (!this.mayMatter(line)) return this
    return this.add(parentFactsFromLine(line))
  }

  private mayMatter(line: string): boolean {
    if (line.includes('task-notification')) return true
    if (line.includes('agent_progress') && line.includes('agentId')) return true
    if (line.includes(RESULT_MARKER)) {
      if (line.includes('agentId')) return true
      for (const id of this.spawns.keys()) if (line.includes(id)) return true
    }
    return line.includes('tool_use') && SPAWN_NAME_RE.test(line)
  }

  /** Folds one parent record already parsed (the index pass's parse): the same facts as addLine of its line. */
  addRecord(rec: Obj): this {
    if (!this.recordMayMatter(rec)) return this
    return this.add(parentFactsFromRecord(rec))
  }

  /**
   * addRecord's sieve, without allocating: false only for a record whose facts
   * add() would ignore (most lines of a long session: ordinary tool calls and
   * results). Permissive where unsure; the fuzz test holds it to addLine.
   */
  private recordMayMatter(rec: Obj): boolean {
    const t = rec.type
    if (t === 'progress') return isObj(rec.data) && rec.data.type === 'agent_progress'
    if (t === 'queue-operation') return rec.operation === 'enqueue'
    if (t === 'attachment') return isObj(rec.attachment) && rec.attachment.type === 'queued_command'
    const msg = rec.message
    if (!isObj(msg)) return false
    const c = msg.content
    if (t === 'assistant') {
      if (!Array.isArray(c)) return false
      for (const b of c) if (isObj(b) && b.type === 'tool_use' && typeof b.name === 'string' && SPAWN_TOOL_NAMES.has(b.name)) return true
      return false
    }
    if (t !== 'user') return false
    if (typeof c === 'string') return MAY_BE_NOTICE.test(c)
    if (!Array.isArray(c)) return false
    const first = c[0]
    if (isObj(first) && typeof first.text === 'string' && MAY_BE_NOTICE.test(first.text)) return true
    if (isObj(rec.toolUseResult) && typeof rec.toolUseResult.agentId === 'string') return true
    if (this.spawns.size === 0) return false
    for (const b of c) if (isObj(b) && typeof b.tool_use_id === 'string' && this.spawns.has(b.tool_use_id)) return true
    return false
  }

  /**
   * The accumulator as plain JSON (for the on-disk index cache): every field,
   * Maps as entry lists. fromJSON() refuses a shape that is not exactly this
   * class's, so a cache written before a field was added is rebuilt, not trusted.
   */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(this)) {
      if (!(v instanceof Map)) throw new Error(`ParentFacts.${k} is not a Map: teach toJSON/fromJSON about it`)
      out[k] = [...v]
    }
    return out
  }

  static fromJSON(saved: unknown): ParentFacts | undefined {
    if (!isObj(saved)) return undefined
    const p = new ParentFacts()
    const fields = Object.entries(p)
    if (Object.keys(saved).length !== fields.length) return undefined
    for (const [k, v] of fields) {
      const entries = saved[k]
      if (!(v instanceof Map) || !Array.isArray(entries)) return undefined
      for (const e of entries) {
        if (!Array.isArray(e) || e.length !== 2 || typeof e[0] !== 'string') return undefined
        v.set(e[0], e[1])
      }
    }
    return p
  }

  add(f: LineFacts): this {
    for (const s of f.spawns) this.spawns.set(s.toolUseId, s)
    for (const r of f.results) {
      if (!this.spawns.has(r.toolUseId) && r.agentId === undefined) continue // an ordinary tool
      this.results.set(r.toolUseId, r)
      if (r.agentId) this.toolUseOf.set(r.agentId, r.toolUseId)
    }
    for (const l of f.links) this.toolUseOf.set(l.agentId, l.toolUseId)
    for (const n of f.notices) {
      // A notice is applied when first written: the enqueue. Its delivery as a user
      // record is the same event again and must not undo a newer status in between.
      if (n.queued) this.pendingDelivery.set(n.raw, (this.pendingDelivery.get(n.raw) ?? 0) + 1)
      else {
        const pending = this.pendingDelivery.get(n.raw) ?? 0
        if (pending > 0) {
          if (pending === 1) this.pendingDelivery.delete(n.raw)
          else this.pendingDelivery.set(n.raw, pending - 1)
          continue
        }
      }
      for (const id of n.agentIds) this.lastStatus.set(id, n.status)
    }
    return this
  }

  /** True once the parent has spawned anything: the session delegated. */
  get delegated(): boolean {
    return this.spawns.size > 0
  }

  /** Folds many lines (tests, first scan). */
  static fromLines(lines: Iterable<string>): ParentFacts {
    const p = new ParentFacts()
    for (const l of lines) p.addLine(l)
    return p
  }
}

/** done per the rules in the header comment. */
export function isDone(agentId: string, toolUseId: string, parent: ParentFacts): boolean {
  const status = parent.lastStatus.get(agentId)
  if (status !== undefined) return !RUNNING_STATUSES.has(status)
  const result = parent.results.get(toolUseId)
  if (!result) return false
  if (result.isError) return true
  if (result.says === 'sync') return true
  if (result.says === 'async') return false
  return parent.spawns.get(toolUseId)?.runInBackground === false
}

export function isInternalAgent(agentId: string): boolean {
  return INTERNAL_AGENT_ID_PATTERNS.some((re) => re.test(agentId))
}

interface Labels {
  agentType: string
  description: string
  toolUseId?: string
  spawnDepth?: number
}

function labelsOf(f: SubagentFileFacts): Labels {
  const none: Labels = { agentType: '', description: '' }
  if (!f.metaReadable || !isObj(f.meta)) return none
  const m = f.meta
  return {
    agentType: typeof m.agentType === 'string' ? m.agentType : '',
    description: typeof m.description === 'string' ? m.description : '',
    toolUseId: typeof m.toolUseId === 'string' ? m.toolUseId : undefined,
    spawnDepth: Number.isInteger(m.spawnDepth) && (m.spawnDepth as number) >= 1 ? (m.spawnDepth as number) : undefined,
  }
}

/**
 * The roster: one row per delegated agent that has a transcript file, ordered
 * by spawn_depth then agent_id. undefined when the session delegated nothing
 * (no rows and no spawn in the parent); [] when it did but no file is left.
 */
export function buildRoster(files: readonly SubagentFileFacts[], parent: ParentFacts): Subagent[] | undefined {
  const rows = new Map<string, Subagent>()
  for (const f of files) {
    if (!f.hasJsonl) continue // meta without a transcript: a row that cannot open
    if (isInternalAgent(f.agentId) || rows.has(f.agentId)) continue
    const l = labelsOf(f)
    const toolUseId = l.toolUseId ?? parent.toolUseOf.get(f.agentId) ?? ''
    // Without meta labels, the spawning call's input names the agent.
    const spawn = toolUseId ? parent.spawns.get(toolUseId) : undefined
    const row: Subagent = {
      agent_id: f.agentId,
      tool_use_id: toolUseId,
      agent_type: l.agentType || (spawn ? (spawn.agentType ?? DEFAULT_AGENT_TYPE) : ''),
      description: l.description || (spawn?.description ?? ''),
      // Without meta: a call found in the parent makes it a direct child; else unknown, shown as 1.
      spawn_depth: l.spawnDepth ?? 1,
      done: isDone(f.agentId, toolUseId, parent),
    }
    if (f.lastWriteMs !== undefined && Number.isFinite(f.lastWriteMs)) row.last_activity_ts = Math.floor(f.lastWriteMs)
    rows.set(f.agentId, row)
  }
  if (rows.size === 0 && !parent.delegated) return undefined
  return [...rows.values()].sort((a, b) => a.spawn_depth - b.spawn_depth || (a.agent_id < b.agent_id ? -1 : a.agent_id > b.agent_id ? 1 : 0))
}
