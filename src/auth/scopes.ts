// Device scopes (docs/bridge.md "Devices with scopes"): what a token may do. Each
// route declares what it needs in its OpenAPI `security` (an OpenAPI 3.1 role
// list on the bearer scheme), through `needs()`, `anyToken()` or `publicRoute()`:
// the auth guard reads that declaration, so a route's scope is part of how it
// is declared, and a route that declares nothing is refused (test/auth/scopes
// walks every route). Pure.
import { t } from 'elysia'
import { type AuditAction, isAuditAction } from '../audit/actions'

export const SCOPES = ['read', 'code', 'answer', 'type', 'terminal', 'start', 'admin'] as const
export type Scope = (typeof SCOPES)[number]

/** What each scope allows, for the docs and `gothalo pair --help`. */
export const SCOPE_MEANING: Record<Scope, string> = {
  read: 'watch: the list, cards, transcripts, events, usage, projects; notifications',
  code: "read the working tree: a pane's changes, diffs and files",
  answer: 'answer dialogs: approve, answer, cycle the permission mode',
  type: 'type: send text and attachments to an agent',
  terminal: 'the raw terminal (watching and typing)',
  start: 'start, resume and stop agents',
  admin: 'pairing codes, devices, the audit log',
}

/** A device paired without naming scopes gets these (and so do devices paired before scopes existed). */
export const DEFAULT_SCOPES: readonly Scope[] = SCOPES.filter((s) => s !== 'admin')

/**
 * The default set before `code` existed, as stored (`formatScopes`'s order): a device or
 * pair code holding exactly this was paired with the default, and gains `code` once
 * (docs/bridge.md "The working tree is not the whole disk").
 */
export const DEFAULT_SCOPES_BEFORE_CODE = 'read,answer,type,terminal,start'

export const isScope = (s: unknown): s is Scope => typeof s === 'string' && (SCOPES as readonly string[]).includes(s)

export const ScopeSchema = t.Union(
  [t.Literal('read'), t.Literal('code'), t.Literal('answer'), t.Literal('type'), t.Literal('terminal'), t.Literal('start'), t.Literal('admin')],
  {
    description: SCOPES.map((s) => `\`${s}\`: ${SCOPE_MEANING[s]}`).join('; '),
  },
)

/** What a route needs: a scope, any valid token, or nothing (public). */
export type RouteNeed = Scope | 'token' | 'public'

type Detail = Record<string, unknown> & { description?: string }

/** The OpenAPI extension that names a write's audit action (docs/bridge.md: one audit row per write). */
export const AUDIT_KEY = 'x-gothalo-audit'

/**
 * A route that needs `scope`: its OpenAPI detail, with the scope in `security` and its
 * description; a write also names its audit action, and the edge records a row for it.
 */
export function needs<D extends Detail>(scope: Scope, detail: D, audit?: AuditAction): D & { security: { bearer: string[] }[] } {
  const note = `Scope: \`${scope}\`.${audit ? ` Recorded in the audit log as \`${audit}\`.` : ''}`
  return {
    ...detail,
    description: detail.description ? `${detail.description}\n\n${note}` : note,
    security: [{ bearer: [scope] }],
    ...(audit ? { [AUDIT_KEY]: audit } : {}),
  }
}

/** The audit action a route's detail names, or undefined (not a write). */
export function auditOf(detail: unknown): AuditAction | undefined {
  const a = (detail as Record<string, unknown> | undefined)?.[AUDIT_KEY]
  return isAuditAction(a) ? a : undefined
}

/** A route any valid token may call (a device asking about itself). */
export function anyToken<D extends Detail>(detail: D): D & { security: { bearer: string[] }[] } {
  return { ...detail, security: [{ bearer: [] }] }
}

/** A route that needs no token (a public write, /pair, still names its audit action). */
export function publicRoute<D extends Detail>(detail: D, audit?: AuditAction): D & { security: never[] } {
  return { ...detail, security: [], ...(audit ? { [AUDIT_KEY]: audit } : {}) }
}

/** The need a route's detail declares, or undefined when it declares none (refused). */
export function needOf(detail: unknown): RouteNeed | undefined {
  const security = (detail as { security?: unknown } | undefined)?.security
  if (!Array.isArray(security)) return undefined
  if (security.length === 0) return 'public'
  if (security.length !== 1) return undefined
  const roles = (security[0] as { bearer?: unknown }).bearer
  if (!Array.isArray(roles)) return undefined
  if (roles.length === 0) return 'token'
  return roles.length === 1 && isScope(roles[0]) ? roles[0] : undefined
}

/** Scopes as stored (a comma list; NULL for a device from before scopes: the default). */
export function parseScopes(stored: string | null | undefined): Scope[] {
  if (stored == null) return [...DEFAULT_SCOPES]
  return stored.split(',').filter(isScope)
}

export const formatScopes = (s: readonly Scope[]): string => SCOPES.filter((x) => s.includes(x)).join(',')

/** `read,answer` from the command line: the scopes, or what is wrong with the list. */
export function scopesFromList(list: string): { scopes: Scope[] } | { error: string } {
  const parts = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (parts.length === 0) return { error: `--scopes: name at least one of ${SCOPES.join(', ')}` }
  const bad = parts.filter((p) => !isScope(p))
  if (bad.length) return { error: `--scopes: unknown scope ${bad.join(', ')} (one of ${SCOPES.join(', ')})` }
  return { scopes: SCOPES.filter((s) => parts.includes(s)) }
}
