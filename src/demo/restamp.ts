// Re-stamping real Claude Code JSONL lines so the demo's sessions can grow: which
// sample lines make a live round (a Bash call with its lead-in and result) or a
// said line, and a template line made new (fresh ids and time, the target
// session's id and cwd). Pure; the ticker (ticker.ts) appends what it returns.

interface ClaudeRecord {
  type?: string
  uuid?: string
  parentUuid?: string | null
  timestamp?: string
  sessionId?: string
  cwd?: string
  sourceToolAssistantUUID?: string
  message?: { id?: string; role?: string; content?: unknown }
}

type Block = { type?: string; name?: string; id?: string; tool_use_id?: string; is_error?: boolean; text?: string }

const blocksOf = (r: ClaudeRecord): Block[] => (Array.isArray(r.message?.content) ? (r.message!.content as Block[]) : [])

function parseLines(text: string): { line: string; rec: ClaudeRecord }[] {
  const out: { line: string; rec: ClaudeRecord }[] = []
  for (const line of text.split('\n')) {
    if (!line.trim()) continue
    try {
      const rec = JSON.parse(line)
      if (rec && typeof rec === 'object' && !Array.isArray(rec)) out.push({ line, rec })
    } catch {
      // a sample line that does not parse is simply not a template
    }
  }
  return out
}

const MAX_TEMPLATE_LINE = 2000

/**
 * The rounds of the live tail, taken from a real session: each is a Bash call
 * with the assistant text that led into it, then the call's result. Empty when
 * the sample has no Bash call with a result.
 */
export function liveTemplates(sample: string): string[][] {
  // Short lines only: a live tail that grows by a 30 KB tool output every round reads badly.
  const recs = parseLines(sample).filter(({ line }) => line.length <= MAX_TEMPLATE_LINE)
  const rounds: string[][] = []
  let leadIn: string | undefined
  for (const { line, rec } of recs) {
    const blocks = blocksOf(rec)
    if (rec.type !== 'assistant' || blocks.length !== 1) continue
    if (blocks[0].type === 'text') leadIn = line
    if (blocks[0].type !== 'tool_use' || blocks[0].name !== 'Bash' || !leadIn) continue
    const id = blocks[0].id
    const result = recs.find(({ rec: r }) => r.type === 'user' && blocksOf(r).some((b) => b.type === 'tool_result' && b.tool_use_id === id))
    if (result) rounds.push([leadIn, line, result.line])
  }
  return rounds
}

export interface Stamp {
  uuid: string
  parentUuid: string | null
  timestamp: string
  sessionId: string
  cwd: string
  /** the message id for assistant lines (one per appended line: none merge) */
  messageId: string
  /** the tool id a tool_use gets and its tool_result refers to */
  toolId: string
  /** the uuid of the appended tool_use line, for its result's sourceToolAssistantUUID */
  toolUseUuid?: string
}

/** A template line made new: fresh ids and time, the target session's id and cwd. */
export function restamp(templateLine: string, s: Stamp): string {
  const rec = JSON.parse(templateLine) as ClaudeRecord & Record<string, unknown>
  rec.uuid = s.uuid
  rec.parentUuid = s.parentUuid
  rec.timestamp = s.timestamp
  rec.sessionId = s.sessionId
  rec.cwd = s.cwd
  if (rec.message && rec.type === 'assistant') rec.message.id = s.messageId
  for (const b of blocksOf(rec)) {
    if (b.type === 'tool_use') b.id = s.toolId
    if (b.type === 'tool_result') b.tool_use_id = s.toolId
  }
  if ('sourceToolAssistantUUID' in rec && s.toolUseUuid) rec.sourceToolAssistantUUID = s.toolUseUuid
  delete rec.promptId
  return JSON.stringify(rec)
}

/** The uuid of the last line that has one (the parent of the next appended line). */
export function lastUuid(sessionText: string): string | null {
  const recs = parseLines(sessionText)
  for (let i = recs.length - 1; i >= 0; i--) if (typeof recs[i].rec.uuid === 'string') return recs[i].rec.uuid!
  return null
}

/** A user line and an assistant text line of a real session: the shapes `say` re-uses. */
export function sayTemplates(sample: string): { user?: string; assistant?: string } {
  const recs = parseLines(sample)
  const user = recs.find(({ rec }) => rec.type === 'user' && typeof rec.message?.content === 'string')?.line
  const assistant = [...recs].reverse().find(({ rec }) => {
    const b = blocksOf(rec)
    return rec.type === 'assistant' && b.length === 1 && b[0].type === 'text'
  })?.line
  return { user, assistant }
}
