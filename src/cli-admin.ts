// `gothalo pair`, `gothalo devices`, `gothalo devices revoke ID`: they open the
// SQLite file in the data dir directly, so they work whether or not the server
// runs (WAL + busy timeout let both share it).
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Settings } from './config'
import { createAuthStore, newSecretToken } from './auth/store'
import type { Device } from './auth/types'

export const DB_FILE = 'gothalo.db'

export function dbPathOf(dataDir: string): string {
  return join(dataDir, DB_FILE)
}

/** `2026-05-01 14:03:07Z`: sortable, and the same on every machine. */
export function formatTime(ms: number | null): string {
  if (ms === null) return 'never'
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z')
}

/** Left-aligned columns, two spaces apart; pure so the layout is testable. */
export function deviceTable(devices: Device[]): string[] {
  const rows = [
    ['ID', 'NAME', 'CREATED', 'LAST SEEN'],
    ...devices.map((d) => [d.device_id, d.name, formatTime(d.created_at), formatTime(d.last_seen_at)]),
  ]
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => [...r[i]].length)))
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell + ' '.repeat(widths[i] - [...cell].length))).join('  '))
}

/** Runs one admin command; returns the exit code. `out` gets one line per call. */
export async function runAdminCommand(
  settings: Settings,
  out: (line: string) => void,
  opts: { clock?: () => number } = {},
): Promise<number> {
  if (settings.command !== 'pair' && settings.command !== 'devices' && settings.command !== 'devices-revoke') {
    out(`not an admin command: ${settings.command}`)
    return 2
  }
  mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 })
  // These commands never check a bearer token, so the store needs no real admin token:
  // a throwaway one keeps the CLI from creating or reading the token file.
  const store = createAuthStore({ dbPath: dbPathOf(settings.dataDir), adminToken: newSecretToken(), clock: opts.clock })
  try {
    switch (settings.command) {
      case 'pair': {
        const { code, expires_at } = store.createPairCode()
        out(`pairing code: ${code}`)
        out(`expires: ${formatTime(expires_at)} (single use, 10 minutes)`)
        return 0
      }
      case 'devices': {
        const devices = store.listDevices()
        if (devices.length === 0) out('no paired devices')
        else for (const line of deviceTable(devices)) out(line)
        return 0
      }
      case 'devices-revoke': {
        const id = settings.arg ?? ''
        if (store.revoke(id)) {
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
