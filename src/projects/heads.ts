// What the project listing needs from the head of a session file: its working
// directory and its title (the first human prompt, one line, at most 120
// characters), read with the kind's own normalizer so the title is the message
// the transcript shows first. Pure: text in, facts out.
import type { LineNormalizer } from '../transcript/jsonl/normalizer'
import { normalizeClaudeLine } from '../transcript/kinds/claude/normalize'
import { normalizeCodexLine } from '../transcript/kinds/codex/normalize'
import { normalizePiLine } from '../transcript/kinds/pi/normalize'

export const TITLE_MAX = 120

export interface SessionHead {
  cwd?: string
  title?: string
  /** ms: the first record's `timestamp` (GET /sessions' started_ts) */
  startedMs?: number
}

export type FileKind = 'claude' | 'pi' | 'codex'

export const NORMALIZERS: Record<FileKind, LineNormalizer> = { claude: normalizeClaudeLine, pi: normalizePiLine, codex: normalizeCodexLine }

/** One line, at most TITLE_MAX characters (an ellipsis marks the cut). */
export function titleOf(text: string): string | undefined {
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '')
  if (!line) return undefined
  const chars = [...line.replace(/\s+/g, ' ')]
  return chars.length <= TITLE_MAX ? chars.join('') : `${chars.slice(0, TITLE_MAX - 1).join('')}…`
}

/** The first `"cwd":"…"` in a text (a header line cut by the head's end still names it early). */
function cwdField(text: string): string | undefined {
  const m = /"cwd"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(text)
  if (!m) return undefined
  try {
    return JSON.parse(m[1]!) as string
  } catch {
    return undefined
  }
}

/** The first `"timestamp":"…"` (ISO) or `"timestamp":<ms>` in a text, as ms. */
function startedField(text: string): number | undefined {
  const m = /"timestamp"\s*:\s*(?:"([^"\\]{1,64})"|(\d{10,16}))/.exec(text)
  if (!m) return undefined
  const ms = m[1] !== undefined ? Date.parse(m[1]) : Number(m[2])
  return Number.isFinite(ms) ? ms : undefined
}

/**
 * The head's facts. `complete` says the text is the whole file; otherwise its last
 * line may be cut and is left out. `title` is absent when the head holds no human
 * prompt yet (read more, or there is none).
 */
export function readHead(kind: FileKind, text: string, complete: boolean): SessionHead {
  const lines = text.split('\n')
  if (!complete) lines.pop()
  const head: SessionHead = {}
  head.cwd = cwdField(text)
  const started = startedField(text)
  if (started !== undefined) head.startedMs = started
  let offset = 0
  for (const line of lines) {
    if (line.trim() !== '') {
      for (const d of NORMALIZERS[kind](line, offset)) {
        if (d.role === 'user' && d.kind === 'message' && d.parsed && d.text) {
          const t = titleOf(d.text)
          if (t) {
            head.title = t
            return head
          }
        }
      }
    }
    offset += Buffer.byteLength(line) + 1
  }
  return head
}
