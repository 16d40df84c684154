// `gothalo pair [--scopes …]`, `gothalo devices`, `gothalo devices revoke ID`, `gothalo audit`.
// `pair` asks the running bridge for a code when one runs on this data dir (its
// URL is in the data dir's runtime file, the admin token beside it), so the code
// is certainly one that bridge accepts; otherwise it makes one in the data dir
// and says which. `devices` open the SQLite file directly, so they work whether
// or not the server runs (WAL + busy timeout let both share it).
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Settings } from './config'
import { ADMIN_TOKEN_FILE } from '../auth/admin-token'
import { createAuthStore, newSecretToken } from '../auth/store'
import type { Device, PairCode } from '../auth/types'
import { DEFAULT_SCOPES, type Scope } from '../auth/scopes'
import { createAuditLog, type AuditRow } from '../audit/log'
import { isLoopback } from '../server/log'
import { escapeUnprintable, escapeUnprintableJson } from '../server/printable'
import { expose, readStoredPublicUrl, runCommand, unexpose, type Run } from '../link/expose'
import { qrLines } from './qr'
import { RUNTIME_FILE, readRuntimeInfo } from './startup'

export const DB_FILE = 'gothalo.db'

export function dbPathOf(dataDir: string): string {
  return join(dataDir, DB_FILE)
}

/** `2026-05-01 14:03:07Z`: sortable, and the same on every machine. */
export function formatTime(ms: number | null): string {
  if (ms === null) return 'never'
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z')
}

/** Left-aligned columns, two spaces apart; pure so the layout is testable. */
export function deviceTable(devices: Device[]): string[] {
  return table([
    ['ID', 'NAME', 'CREATED', 'LAST SEEN', 'SCOPES'],
    ...devices.map((d) => [d.device_id, d.name, formatTime(d.created_at), formatTime(d.last_seen_at), d.scopes.join(',')]),
  ])
}

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => [...r[i]].length)))
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell + ' '.repeat(widths[i] - [...cell].length))).join('  '))
}

/**
 * The audit log as a table, newest first; pure. Detail is one line of JSON (never typed text: lengths and hashes).
 * Every field is escaped (escapeUnprintable): a pane a phone named may hold colour codes or a newline, and must
 * not colour the admin's terminal or print a row of its own.
 */
export function auditTable(rows: AuditRow[]): string[] {
  return table([
    ['TIME', 'DEVICE', 'ACTION', 'PANE', 'STATUS', 'DETAIL'],
    ...rows.map((r) => [
      formatTime(r.ts),
      escapeUnprintable(r.device_id),
      escapeUnprintable(r.action),
      r.pane === null ? '-' : escapeUnprintable(r.pane),
      String(r.status),
      escapeUnprintableJson(JSON.stringify(r.detail)),
    ]),
  ])
}

/** One row as a line of JSON for `gothalo audit --json`, nothing in it a terminal acts on. */
export function auditJsonLine(r: AuditRow): string {
  return escapeUnprintableJson(JSON.stringify({ ...r, time: new Date(r.ts).toISOString() }))
}

/** Runs one admin command; returns the exit code. `out` gets one line per call. */
/** The URL a phone opens to pair: the app at `base`, the code in the fragment (never sent to a server). */
export function pairUrl(base: string, code: string): string {
  return `${base.replace(/\/+$/, '')}/#pair=${encodeURIComponent(code)}`
}

function readAdminToken(dataDir: string): string | undefined {
  try {
    return readFileSync(join(dataDir, ADMIN_TOKEN_FILE), 'utf8').trim() || undefined
  } catch {
    return undefined
  }
}

type Asked = { ok: true; code: PairCode & { scopes?: Scope[] }; url: string; publicUrl?: string } | { ok: false; fatal?: string; note?: string }

/** Asks the bridge that runs on this data dir for a pair code. */
async function askBridge(settings: Settings, fetchImpl: typeof fetch): Promise<Asked> {
  const info = readRuntimeInfo(settings.dataDir)
  if (!info) return { ok: false, note: `no bridge is running on data dir ${settings.dataDir} (no ${RUNTIME_FILE} there)` }
  const token = settings.adminToken ?? readAdminToken(settings.dataDir)
  if (!token) return { ok: false, fatal: `no admin token in ${join(settings.dataDir, ADMIN_TOKEN_FILE)} — pass the bridge's --admin-token` }
  let res: Response
  try {
    res = await fetchImpl(`${info.url}/pair/code`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(settings.scopes ? { scopes: settings.scopes } : {}),
      signal: AbortSignal.timeout(5000),
    })
  } catch (e) {
    return { ok: false, note: `the bridge recorded in ${join(settings.dataDir, RUNTIME_FILE)} (${info.url}) does not answer (${(e as Error).message})` }
  }
  if (res.status === 401 || res.status === 403)
    return {
      ok: false,
      fatal: `the bridge at ${info.url} refused the admin token (it was started with another --admin-token?) — pass the same --admin-token or GOTHALO_ADMIN_TOKEN`,
    }
  if (!res.ok) return { ok: false, fatal: `the bridge at ${info.url} answered ${res.status}: ${(await res.text()).slice(0, 200)}` }
  return { ok: true, code: (await res.json()) as PairCode & { scopes?: Scope[] }, url: info.url, publicUrl: info.public_url }
}

export async function runAdminCommand(
  settings: Settings,
  out: (line: string) => void,
  opts: { clock?: () => number; fetch?: typeof fetch; colour?: boolean; err?: (line: string) => void } = {},
): Promise<number> {
  if (settings.command === 'pair') return pair(settings, out, opts)
  if (settings.command === 'audit') return audit(settings, out)
  if (settings.command === 'expose') return exposeCommand(settings, out, opts)
  if (settings.command !== 'devices' && settings.command !== 'devices-revoke') {
    out(`not an admin command: ${settings.command}`)
    return 2
  }
  mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 })
  // These commands never check a bearer token, so the store needs no real admin token:
  // a throwaway one keeps the CLI from creating or reading the token file.
  const store = createAuthStore({ dbPath: dbPathOf(settings.dataDir), adminToken: newSecretToken(), clock: opts.clock })
  try {
    switch (settings.command) {
      case 'devices': {
        const devices = store.listDevices()
        if (devices.length === 0) out('no paired devices')
        else for (const line of deviceTable(devices)) out(line)
        return 0
      }
      case 'devices-revoke': {
        const id = settings.arg ?? ''
        if (store.revoke(id)) {
          const log = createAuditLog(dbPathOf(settings.dataDir), opts.clock)
          try {
            log.record({ device_id: 'cli', action: 'device.revoke', pane: null, detail: { device: id }, status: 200 })
          } finally {
            log.close()
          }
          out(`revoked ${id}`)
          return 0
        }
        out(`no such device: ${id}`)
        return 1
      }
    }
  } finally {
    store.close()
  }
}

/**
 * `gothalo pair`: the code, the pairing URL and its QR code. The code comes from
 * the running bridge when there is one; the data dir is always named, so a code
 * made for one data dir is never silently offered to a bridge on another.
 */
async function pair(settings: Settings, out: (line: string) => void, opts: { clock?: () => number; fetch?: typeof fetch; colour?: boolean }): Promise<number> {
  const asked = await askBridge(settings, opts.fetch ?? fetch)
  if (!asked.ok && asked.fatal) {
    out(`gothalo pair: ${asked.fatal}`)
    return 1
  }
  let code: PairCode & { scopes?: readonly Scope[] }
  let from: string
  let base: string
  if (asked.ok) {
    code = asked.code
    from = `made by the bridge at ${asked.url} (data dir ${settings.dataDir})`
    base = settings.publicUrl ?? readStoredPublicUrl(settings.dataDir) ?? asked.publicUrl ?? asked.url
  } else {
    mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 })
    // No bearer token is checked here, so the store needs no real admin token.
    const store = createAuthStore({ dbPath: dbPathOf(settings.dataDir), adminToken: newSecretToken(), clock: opts.clock })
    try {
      code = { ...store.createPairCode(settings.scopes), scopes: settings.scopes ?? [...DEFAULT_SCOPES] }
    } finally {
      store.close()
    }
    from = `${asked.note}; the code is stored there, and a bridge started with --data-dir ${settings.dataDir} accepts it`
    base = settings.publicUrl ?? readStoredPublicUrl(settings.dataDir) ?? `http://127.0.0.1:${settings.port}`
  }
  const url = pairUrl(base, code.code)
  out(`pairing code: ${code.code}`)
  out(`expires: ${formatTime(code.expires_at)} (single use, 10 minutes)`)
  out(`scopes: ${(code.scopes ?? DEFAULT_SCOPES).join(',')} (what the paired device may do)`)
  out(`pairing URL: ${url}`)
  for (const l of qrLines(url, opts.colour ?? false)) out(l)
  out(from)
  if (isLoopback(new URL(base).hostname))
    out("note: this URL only works on this machine; give the phone's address with --public-url or GOTHALO_PUBLIC_URL (e.g. your tailscale serve URL)")
  return 0
}

/** `gothalo audit [--since T] [--json]`: the audit log from the bridge's database, newest first. */
function audit(settings: Settings, out: (line: string) => void): number {
  mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 })
  const log = createAuditLog(dbPathOf(settings.dataDir))
  try {
    const rows = log.list({ since: settings.since, limit: 1000 })
    if (settings.json) for (const r of rows) out(auditJsonLine(r))
    else if (rows.length === 0) out(settings.since === undefined ? 'the audit log is empty' : `nothing since ${formatTime(settings.since)}`)
    else for (const line of auditTable(rows)) out(line)
    return 0
  } finally {
    log.close()
  }
}

/**
 * `gothalo expose [--off]`: the bridge that runs on this data dir (or, with none
 * running, the configured port) behind tailscale serve; then a pairing code for
 * the new URL. One line that says what to do when anything is off.
 */
export async function exposeCommand(
  settings: Settings,
  out: (line: string) => void,
  opts: { clock?: () => number; fetch?: typeof fetch; colour?: boolean; run?: Run; err?: (line: string) => void },
): Promise<number> {
  // a failure's line is an error: stderr for the executable (opts.err), with the other lines when none is given
  const err = opts.err ?? out
  mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 })
  const info = readRuntimeInfo(settings.dataDir)
  const bridgePort = info ? Number(new URL(info.url).port) : settings.port
  const o = { tailscale: settings.tailscale ?? 'tailscale', bridgePort, dataDir: settings.dataDir, run: opts.run ?? runCommand }
  if (settings.off) {
    const r = await unexpose(o)
    if (!r.ok) {
      err(`gothalo expose --off: ${r.error}`)
      return 1
    }
    out(
      r.port === undefined
        ? 'nothing served the bridge through tailscale serve; the remembered URL is forgotten'
        : `tailscale serve no longer serves the bridge on HTTPS port ${r.port}; the remembered URL is forgotten`,
    )
    return 0
  }
  const r = await expose(o)
  if (!r.ok) {
    err(`gothalo expose: ${r.error}`)
    return 1
  }
  out(`${r.url} now reaches the bridge at http://127.0.0.1:${bridgePort} (tailscale serve, HTTPS port ${r.port}${r.already ? ', already set up' : ''})`)
  if (!info) out(`no bridge runs on data dir ${settings.dataDir} yet: start it on port ${bridgePort}`)
  if (settings.publicUrl && settings.publicUrl !== r.url) out(`note: --public-url ${settings.publicUrl} still wins over it`)
  const code = await pair({ ...settings, publicUrl: settings.publicUrl ?? r.url }, out, opts)
  out('undo: gothalo expose --off')
  return code
}
