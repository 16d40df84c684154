// What the audit log keeps of each write, by action: the detail a route's
// request and answer give, never typed text (its length and SHA-256). A route
// names its action where it declares its scope (`needs(scope, detail, action)`).
// Pure.
import { createHash } from 'node:crypto'

/** Typed text as the audit log keeps it. */
export function textDigest(text: unknown): { length: number; sha256: string } | undefined {
  if (typeof text !== 'string') return undefined
  return { length: text.length, sha256: createHash('sha256').update(text).digest('hex') }
}

/** A request body as the audit log keeps one that failed validation: its length in bytes and SHA-256, never its content. */
export function bodyDigest(raw: Uint8Array | string): { length: number; sha256: string } {
  const bytes = typeof raw === 'string' ? new TextEncoder().encode(raw) : raw
  return { length: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }
}

/** A row's detail is at most this many bytes of JSON (docs/bridge.md "The audit log's bounds"). */
export const DETAIL_MAX_BYTES = 2048
/** A string in a detail longer than this is kept as its digest. */
const DETAIL_STRING_MAX = 256

/**
 * A detail within DETAIL_MAX_BYTES: each string longer than DETAIL_STRING_MAX
 * becomes its digest; a detail still too large (a long list) becomes the digest of
 * its JSON, `{"oversize": {length, sha256}}`.
 */
export function boundDetail(detail: Record<string, unknown>): Record<string, unknown> {
  const json = JSON.stringify(detail)
  if (Buffer.byteLength(json) <= DETAIL_MAX_BYTES) return detail
  const cut = (v: unknown): unknown =>
    typeof v === 'string'
      ? v.length > DETAIL_STRING_MAX
        ? textDigest(v)
        : v
      : Array.isArray(v)
        ? v.map(cut)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k.slice(0, DETAIL_STRING_MAX), cut(x)]))
          : v
  const shorter = cut(detail) as Record<string, unknown>
  return Buffer.byteLength(JSON.stringify(shorter)) <= DETAIL_MAX_BYTES ? shorter : { oversize: bodyDigest(json) }
}

export interface AuditInput {
  body: Record<string, unknown>
  params: Record<string, string | undefined>
  query: Record<string, unknown>
  /** the handler's answer (success only) */
  response?: unknown
  /** the status answered */
  status?: number
}

const pick = (o: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]))

export const AUDIT_ACTIONS = {
  approve: ({ body }: AuditInput) => pick(body, ['seq', 'fingerprint']),
  answer: ({ body }: AuditInput) => ({ ...pick(body, ['seq', 'fingerprint', 'choose']), ...(body.text === undefined ? {} : { text: textDigest(body.text) }) }),
  send: ({ body }: AuditInput) => ({ text: textDigest(body.text), ...(Array.isArray(body.attachments) ? { attachments: body.attachments } : {}) }),
  attach: ({ response }: AuditInput) => {
    const r = response as { id?: unknown; mime?: unknown; bytes?: unknown } | undefined
    return r ? { id: r.id, mime: r.mime, bytes: r.bytes } : {}
  },
  'mode.cycle': () => ({}),
  'pair.code': ({ body, response }: AuditInput) => ({ scopes: (response as { scopes?: unknown } | undefined)?.scopes ?? body.scopes }),
  pair: ({ body, response }: AuditInput) => ({ name: body.device_name, scopes: (response as { scopes?: unknown } | undefined)?.scopes }),
  'device.revoke': ({ params }: AuditInput) => ({ device: params.id }),
  'push.subscribe': ({ body }: AuditInput) => {
    let host: string | undefined
    try {
      host = new URL(String((body.subscription as { endpoint?: unknown } | undefined)?.endpoint)).host
    } catch {}
    return { events: body.events ?? ['blocked', 'done'], push_service: host }
  },
  'push.unsubscribe': ({ params }: AuditInput) => ({ subscription: params.id }),
  terminal: () => ({}),
  'agent.start': ({ body, response, status }: AuditInput) => {
    // a start refused for its directory, session or name keeps what it named as digests: text the phone chose, that named nothing
    const named = status === 400 || status === 404 ? textDigest : (v: unknown) => v
    // the name herdr knows the agent by: the given one, else the one the bridge made up (in the answer)
    const answered = (response as { name?: unknown } | undefined)?.name
    return {
      kind: body.kind,
      cwd: named(body.cwd),
      ...(body.resume === undefined ? {} : { resume: named(body.resume) }),
      ...(answered !== undefined ? { name: answered } : body.name === undefined ? {} : { name: named(body.name) }),
      ...(body.prompt === undefined ? {} : { prompt: textDigest(body.prompt) }),
      ...((response as { pane_id?: unknown } | undefined)?.pane_id ? { pane_id: (response as { pane_id: string }).pane_id } : {}),
    }
  },
  'agent.stop': ({ body }: AuditInput) => ({ force: body.force === true }),
} satisfies Record<string, (i: AuditInput) => Record<string, unknown>>

export type AuditAction = keyof typeof AUDIT_ACTIONS

export const isAuditAction = (a: unknown): a is AuditAction => typeof a === 'string' && Object.hasOwn(AUDIT_ACTIONS, a)

/** The pane a write targets: `pane` or `agent` in the body, or `?pane=`. */
export function paneOf(i: AuditInput): string | null {
  // a start's pane is the one it made (in its answer)
  const t = i.body.pane ?? i.body.agent ?? i.query.pane ?? (i.response as { pane_id?: unknown } | undefined)?.pane_id
  return typeof t === 'string' ? t.slice(0, 64) : null
}
