// Claude Code wraps non-human "user" text in XML-ish tags (slash commands,
// local command output, task notifications, …). This module recognises them
// and parses <task-notification> blocks. Pure; shared by the normalizer (what
// to show) and the roster logic (which agent finished).

/** XML entities Claude Code escapes inside notification values. */
export function unescapeXml(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
}

/** One <task-notification> block: its own top-level child elements only. */
export interface TaskNotice {
  /** every <task-id> of the block (one notice may name several agents) */
  taskIds: string[]
  toolUseId?: string
  /** absent on monitor events: such a notice completes nothing */
  status?: string
  summary?: string
  result?: string
  event?: string
  /** the block's raw text, used to recognise the same notice delivered twice */
  raw: string
}

const OPEN = '<task-notification>'
const CLOSE = '</task-notification>'

/** True when the text is a notification delivery: it must START with the tag
 *  (docs, skills and agent prose quote the tag mid-text; those never count). */
export function isTaskNotificationText(text: string): boolean {
  return text.trimStart().startsWith(OPEN)
}

/**
 * Parses every notification block of a text that starts with one. Blocks must
 * begin at the start of the text or of a line; inside a block only the block's
 * own children are read, in sequence, each up to its own closing tag — so a
 * <status> quoted inside <result> prose is skipped with the result, and prose
 * outside any block (trailers like "Read the output file…") is ignored.
 */
export function parseTaskNotifications(text: string): TaskNotice[] {
  if (!isTaskNotificationText(text)) return []
  const notices: TaskNotice[] = []
  let pos = text.indexOf(OPEN)
  while (pos >= 0) {
    const parsed = parseBlock(text, pos + OPEN.length)
    notices.push({ ...parsed.notice, raw: text.slice(pos, parsed.end) })
    pos = nextBlockStart(text, parsed.end)
  }
  return notices
}

function nextBlockStart(text: string, from: number): number {
  let i = text.indexOf(OPEN, from)
  while (i >= 0) {
    if (i === 0 || text[i - 1] === '\n') return i
    i = text.indexOf(OPEN, i + 1)
  }
  return -1
}

function parseBlock(text: string, start: number): { notice: Omit<TaskNotice, 'raw'>; end: number } {
  const notice: Omit<TaskNotice, 'raw'> = { taskIds: [] }
  let p = start
  for (;;) {
    while (p < text.length && /\s/.test(text[p]!)) p++
    if (p >= text.length) return { notice, end: text.length }
    if (text.startsWith(CLOSE, p)) return { notice, end: p + CLOSE.length }
    const open = /^<([A-Za-z][\w-]*)>/.exec(text.slice(p, p + 64))
    if (!open) {
      // stray text inside a block: skip to the next tag
      const lt = text.indexOf('<', p + 1)
      if (lt < 0) return { notice, end: text.length }
      p = lt
      continue
    }
    const name = open[1]!
    const valueStart = p + open[0].length
    const close = text.indexOf(`</${name}>`, valueStart)
    if (close < 0) {
      // unterminated child: the block is truncated, keep what we have
      return { notice, end: text.length }
    }
    const value = unescapeXml(text.slice(valueStart, close).trim())
    switch (name) {
      case 'task-id':
        if (value) notice.taskIds.push(value)
        break
      case 'task-ids':
        for (const id of value.split(/[\s,]+/)) if (id) notice.taskIds.push(id)
        break
      case 'tool-use-id':
        notice.toolUseId = value
        break
      case 'status':
        notice.status = value
        break
      case 'summary':
        notice.summary = value
        break
      case 'result':
        notice.result = value
        break
      case 'event':
        notice.event = value
        break
    }
    p = close + name.length + 3
  }
}

/** A readable text for a chat view: summary, then result or event. */
export function noticeText(n: TaskNotice): string {
  const head = n.summary || (n.status ? `Task ${n.taskIds.join(', ')} ${n.status}` : 'Task notification')
  const body = n.result ?? n.event
  return body ? `${head}\n\n${body}` : head
}

/** What a non-human user text wrapper means for the chat view. */
export type WrappedText =
  | { kind: 'human'; text: string }
  | { kind: 'slash'; text: string } // "/clear args": a user message
  | { kind: 'system'; text: string } // shown as a system message
  | { kind: 'noise' } // nothing to show

function tag(text: string, name: string): string | undefined {
  const m = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(text)
  return m ? m[1] : undefined
}

/** Interruption markers Claude Code writes as user text. */
const INTERRUPT_PREFIX = '[Request interrupted by user'

/**
 * Classifies the text of a user record (string content or one text block).
 * The decisions, by wrapper:
 *   <task-notification>…   → system: summary + result (no raw XML on a phone)
 *   <command-name>/x…      → slash: "/x args" as the user's own message (either tag order)
 *   <local-command-stdout> → system: the output; empty output → noise
 *   <local-command-stderr> → system: "[stderr] …"
 *   <local-command-caveat> → noise (model-facing caveat)
 *   <system-reminder>…     → noise (injected context)
 *   <bash-input>cmd        → slash-like: "!cmd" (the user typed a shell command)
 *   <bash-stdout>/<bash-stderr> → system: the output
 *   [Request interrupted by user…] → system: the marker text
 *   anything else          → human
 */
export function classifyUserText(raw: string): WrappedText {
  const text = raw.trimStart()
  if (text.startsWith(OPEN)) {
    const notices = parseTaskNotifications(text)
    return { kind: 'system', text: notices.map(noticeText).join('\n\n') }
  }
  if (text.startsWith('<command-name>') || text.startsWith('<command-message>')) {
    const name = (tag(text, 'command-name') ?? '').trim()
    const args = (tag(text, 'command-args') ?? '').trim()
    const cmd = name || '/' + (tag(text, 'command-message') ?? '').trim()
    return { kind: 'slash', text: args ? `${cmd} ${args}` : cmd }
  }
  if (text.startsWith('<local-command-stdout>') || text.startsWith('<local-command-stderr>')) {
    const out = (tag(text, 'local-command-stdout') ?? '').trim()
    const err = (tag(text, 'local-command-stderr') ?? '').trim()
    const body = [out, err ? `[stderr] ${err}` : ''].filter(Boolean).join('\n')
    return body ? { kind: 'system', text: body } : { kind: 'noise' }
  }
  if (text.startsWith('<local-command-caveat>') || text.startsWith('<system-reminder>')) return { kind: 'noise' }
  if (text.startsWith('<bash-input>')) return { kind: 'slash', text: '!' + (tag(text, 'bash-input') ?? '').trim() }
  if (text.startsWith('<bash-stdout>') || text.startsWith('<bash-stderr>')) {
    const out = (tag(text, 'bash-stdout') ?? '').trim()
    const err = (tag(text, 'bash-stderr') ?? '').trim()
    const body = [out, err ? `[stderr] ${err}` : ''].filter(Boolean).join('\n')
    return body ? { kind: 'system', text: body } : { kind: 'noise' }
  }
  if (text.startsWith(INTERRUPT_PREFIX)) return { kind: 'system', text: text.trim() }
  return { kind: 'human', text: raw }
}
