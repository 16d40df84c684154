// Attachments a phone uploaded for an agent (docs/bridge.md "Attachments"): the
// bytes in a private directory under the data dir (0700, files 0600, named by the
// bridge, never by the phone), what each is and whose in the bridge's database.
// A file is written under a temporary name and renamed once whole, so an upload
// cut off leaves nothing. Kept 7 days.
import { openSharedDb } from '../server/sqlite'
import { randomBytes } from 'node:crypto'
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { EXTENSION, type AttachmentType } from './kind'

export const ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024
export const ATTACHMENT_KEEP_MS = 7 * 24 * 3600_000

export interface Attachment {
  id: string
  device_id: string
  path: string
  mime: AttachmentType
  bytes: number
  created_at: number
}

export interface AttachmentStore {
  readonly dir: string
  save(device: string, mime: AttachmentType, bytes: Uint8Array): Attachment
  /** the attachment, when it exists, is the device's (the admin reads any) and is not expired */
  get(id: string, device: string | undefined): Attachment | undefined
  /** removes what is older than 7 days (files and rows), and stray partial files; how many */
  prune(): number
  close(): void
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS attachments (
  id TEXT PRIMARY KEY,
  device_id TEXT NOT NULL,
  path TEXT NOT NULL,
  mime TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
`

export function createAttachmentStore(dir: string, dbPath: string, clock: () => number = Date.now): AttachmentStore {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  chmodSync(dir, 0o700)
  const db = openSharedDb(dbPath)
  db.exec(SCHEMA)
  const q = {
    insert: db.query('INSERT INTO attachments (id, device_id, path, mime, bytes, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
    get: db.query<Attachment, [string]>('SELECT * FROM attachments WHERE id = ?'),
    old: db.query<{ id: string; path: string }, [number]>('SELECT id, path FROM attachments WHERE created_at < ?'),
    drop: db.query('DELETE FROM attachments WHERE id = ?'),
  }
  return {
    dir,
    save(device, mime, bytes) {
      const id = randomBytes(16).toString('hex')
      const path = join(dir, `${id}.${EXTENSION[mime]}`)
      const part = `${path}.part`
      const fd = openSync(part, 'wx', 0o600)
      try {
        for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off)
        fsyncSync(fd)
      } catch (e) {
        closeSync(fd)
        rmSync(part, { force: true })
        throw e
      }
      closeSync(fd)
      renameSync(part, path)
      const a: Attachment = { id, device_id: device, path, mime, bytes: bytes.length, created_at: clock() }
      q.insert.run(a.id, a.device_id, a.path, a.mime, a.bytes, a.created_at)
      return a
    },
    get(id, device) {
      if (!/^[0-9a-f]{32}$/.test(id)) return undefined
      const a = q.get.get(id)
      if (!a || a.created_at < clock() - ATTACHMENT_KEEP_MS) return undefined
      if (device !== undefined && a.device_id !== device) return undefined
      try {
        statSync(a.path)
      } catch {
        return undefined
      }
      return a
    },
    prune() {
      let n = 0
      for (const r of q.old.all(clock() - ATTACHMENT_KEEP_MS)) {
        rmSync(r.path, { force: true })
        q.drop.run(r.id)
        n++
      }
      // partial files of uploads a crash cut off
      for (const f of readdirSync(dir)) if (f.endsWith('.part')) rmSync(join(dir, f), { force: true })
      return n
    },
    close() {
      db.close()
    },
  }
}
