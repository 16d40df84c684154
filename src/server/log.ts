// The bridge's log: one line per request and per event, as text or JSON, on
// stderr. Fields are given by name so a log line can never carry a token or
// typed text by accident of formatting: callers pass only what they mean to.
import type { LogFormat, LogLevel } from '../cli/config'
import type { Principal } from '../auth/types'

export type Fields = Record<string, string | number | boolean | null | undefined>

export interface Logger {
  readonly level: LogLevel
  error(msg: string, fields?: Fields): void
  warn(msg: string, fields?: Fields): void
  info(msg: string, fields?: Fields): void
  debug(msg: string, fields?: Fields): void
}

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 }

/** `key=value`, quoted when the value has a space, a quote or an = (so a line splits back into fields). */
function textValue(v: string | number | boolean | null): string {
  const s = String(v)
  return s === '' || /[\s"=\\]/.test(s) ? JSON.stringify(s) : s
}

export function formatLine(format: LogFormat, at: Date, level: LogLevel, msg: string, fields: Fields = {}): string {
  const present = Object.entries(fields).filter(([, v]) => v !== undefined) as [string, string | number | boolean | null][]
  if (format === 'json') return JSON.stringify({ ts: at.toISOString(), level, msg, ...Object.fromEntries(present) })
  const rest = present.map(([k, v]) => ` ${k}=${textValue(v)}`).join('')
  return `${at.toISOString()} ${level.toUpperCase().padEnd(5)} ${msg}${rest}`
}

export function createLogger(opts: { level?: LogLevel; format?: LogFormat; write?: (line: string) => void; clock?: () => number } = {}): Logger {
  const level = opts.level ?? 'info'
  const format = opts.format ?? 'text'
  const write = opts.write ?? ((line: string) => process.stderr.write(line + '\n'))
  const clock = opts.clock ?? Date.now
  const at = (l: LogLevel) => (msg: string, fields?: Fields) => {
    if (RANK[l] <= RANK[level]) write(formatLine(format, new Date(clock()), l, msg, fields))
  }
  return { level, error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') }
}

/** A logger that drops everything (tests that do not look at the log). */
export const silentLogger: Logger = createLogger({ level: 'error', write: () => {} })

/** Loopback addresses only: anything else exposes the bridge to a network. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase()
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || /^::ffff:127\./.test(h)
}

/** Who made a request, for the log: a device id, `admin`, or nothing. Never the token. */
export function whoOf(c: unknown): string | undefined {
  const p = (c as { principal?: Principal } | undefined)?.principal
  return p ? (p.kind === 'device' ? p.deviceId : 'admin') : undefined
}
