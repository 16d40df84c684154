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

export interface AuditInput {
  body: Record<string, unknown>
  params: Record<string, string | undefined>
  query: Record<string, unknown>
  /** the handler's answer (success only) */
  response?: unknown
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
  'agent.start': ({ body, response }: AuditInput) => ({
    kind: body.kind,
    cwd: body.cwd,
    ...(body.resume === undefined ? {} : { resume: body.resume }),
    // the name herdr knows the agent by: the given one, else the one the bridge made up (in the answer)
    ...((response as { name?: unknown } | undefined)?.name !== undefined
      ? { name: (response as { name: unknown }).name }
      : body.name === undefined
        ? {}
        : { name: body.name }),
    ...(body.prompt === undefined ? {} : { prompt: textDigest(body.prompt) }),
    ...((response as { pane_id?: unknown } | undefined)?.pane_id ? { pane_id: (response as { pane_id: string }).pane_id } : {}),
  }),
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
