// Web Push subscriptions, per paired device, in the bridge's SQLite file (the
// devices live there too). Revoking a device deletes its subscriptions (the
// server listens for revocations; at open, those of devices revoked while it was
// down are dropped).
import { openSharedDb } from '../server/sqlite'
import { randomBytes } from 'node:crypto'

/** The statuses a subscription can ask to hear about. */
export const PUSH_EVENTS = ['blocked', 'done', 'idle', 'working'] as const
export type PushEvent = (typeof PUSH_EVENTS)[number]

export interface PushSubscriptionRecord {
  id: string
  device_id: string
  endpoint: string
  keys: { p256dh: string; auth: string }
  events: PushEvent[]
  created_at: number
}

export interface PushStore {
  /** Adds (or, for an endpoint the device already registered, replaces) a subscription; its id. */
  add(deviceId: string, endpoint: string, keys: { p256dh: string; auth: string }, events: PushEvent[]): string
  list(deviceId?: string): PushSubscriptionRecord[]
  get(id: string): PushSubscriptionRecord | undefined
  /** Deletes one; with deviceId, only if it is that device's. */
  remove(id: string, deviceId?: string): boolean
  removeDevice(deviceId: string): number
  count(): number
  close(): void
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS push_subscriptions (
  id TEXT PRIMARY KEY,
  device_id TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  p256dh TEXT NOT NULL,
  auth TEXT NOT NULL,
  events TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (device_id, endpoint)
);
CREATE INDEX IF NOT EXISTS push_subscriptions_device ON push_subscriptions (device_id);
`

type Row = { id: string; device_id: string; endpoint: string; p256dh: string; auth: string; events: string; created_at: number }

const toRecord = (r: Row): PushSubscriptionRecord => ({
  id: r.id,
  device_id: r.device_id,
  endpoint: r.endpoint,
  keys: { p256dh: r.p256dh, auth: r.auth },
  events: JSON.parse(r.events),
  created_at: r.created_at,
})

export function createPushStore(dbPath: string, clock: () => number = Date.now): PushStore {
  const db = openSharedDb(dbPath)
  db.exec(SCHEMA)
  // Devices revoked (or gone) while the server was down: their subscriptions go.
  try {
    db.exec('DELETE FROM push_subscriptions WHERE device_id NOT IN (SELECT id FROM devices WHERE revoked = 0)')
  } catch {
    // no devices table in this file (a bare store in a test): nothing to check against
  }
  const q = {
    upsert: db.query(
      `INSERT INTO push_subscriptions (id, device_id, endpoint, p256dh, auth, events, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (device_id, endpoint) DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth, events = excluded.events`,
    ),
    idOf: db.query<{ id: string }, [string, string]>('SELECT id FROM push_subscriptions WHERE device_id = ? AND endpoint = ?'),
    all: db.query<Row, []>('SELECT * FROM push_subscriptions ORDER BY created_at, id'),
    byDevice: db.query<Row, [string]>('SELECT * FROM push_subscriptions WHERE device_id = ? ORDER BY created_at, id'),
    get: db.query<Row, [string]>('SELECT * FROM push_subscriptions WHERE id = ?'),
    remove: db.query('DELETE FROM push_subscriptions WHERE id = ?'),
    removeOwn: db.query('DELETE FROM push_subscriptions WHERE id = ? AND device_id = ?'),
    removeDevice: db.query('DELETE FROM push_subscriptions WHERE device_id = ?'),
    count: db.query<{ n: number }, []>('SELECT count(*) AS n FROM push_subscriptions'),
  }
  return {
    add(deviceId, endpoint, keys, events) {
      const id = `sub_${randomBytes(9).toString('base64url')}`
      q.upsert.run(id, deviceId, endpoint, keys.p256dh, keys.auth, JSON.stringify(events), clock())
      return q.idOf.get(deviceId, endpoint)!.id
    },
    list(deviceId) {
      return (deviceId === undefined ? q.all.all() : q.byDevice.all(deviceId)).map(toRecord)
    },
    get(id) {
      const r = q.get.get(id)
      return r ? toRecord(r) : undefined
    },
    remove(id, deviceId) {
      return (deviceId === undefined ? q.remove.run(id) : q.removeOwn.run(id, deviceId)).changes > 0
    },
    removeDevice(deviceId) {
      return q.removeDevice.run(deviceId).changes
    },
    count() {
      return q.count.get()?.n ?? 0
    },
    close() {
      db.close()
    },
  }
}
