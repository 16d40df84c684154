import { afterAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { normalizeOpencodeMessages } from '../../../../src/transcript/kinds/opencode/normalize'
import { openOpencodeStore, opencodeDataDir } from '../../../../src/transcript/kinds/opencode/store'
import { pickOpencodeSession } from '../../../../src/transcript/kinds/opencode/resolve'

const FIX = join(import.meta.dir, '../../../../fixtures/opencode')
const DEMO = 'ses_dc9c81e7effeFPj4Gy4Pf06H0I'
const PERMS = 'ses_dc9c6f3f6ffeaI7KYi9o9i7LPb'
const captured = (id: string) => JSON.parse(readFileSync(join(FIX, `api/session-${id}-message.json`), 'utf8'))

const tmp = mkdtempSync(join(tmpdir(), 'oc-store-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** A private copy of the real db (+WAL, shm): tests write to it. */
function dbCopy(name: string): string {
  const xdgData = join(tmp, name)
  cpSync(join(FIX, 'data'), xdgData, { recursive: true })
  return opencodeDataDir(xdgData)
}

describe('SQLite store (real opencode 1.18.33 database)', () => {
  const dataDir = dbCopy('read')
  const store = openOpencodeStore(dataDir)!
  afterAll(() => store.close())

  test('lists sessions newest first with their directory', async () => {
    expect(store.kind).toBe('sqlite')
    expect(await store.listSessions()).toEqual([
      { id: PERMS, directory: '/home/me/oc/proj', title: 'Opencode permissions', timeCreated: 1796206038026, timeUpdated: 1796206114169 },
      { id: DEMO, directory: '/home/me/oc/proj', title: 'Opencode demo', timeCreated: 1796205961601, timeUpdated: 1796206007713 },
    ])
    expect((await store.session(DEMO))?.title).toBe('Opencode demo')
    expect(await store.session('ses_nope')).toBeUndefined()
  })

  test.each([DEMO, PERMS])('messages(%s) equal the normalized API capture of the same session', async (id) => {
    const drafts = await store.messages(id)
    expect(drafts.length).toBeGreaterThan(5)
    expect(drafts).toEqual(normalizeOpencodeMessages(captured(id)))
  })

  test('rawMessages with a limit keeps the newest messages, oldest first', async () => {
    const all = (await store.rawMessages(DEMO)) as any[]
    const last3 = (await store.rawMessages(DEMO, { limit: 3 })) as any[]
    expect(last3.map((m) => m.info.id)).toEqual(all.slice(-3).map((m) => m.info.id))
    expect(await store.rawMessages('ses_nope')).toEqual([])
  })
})

describe('never locks opencode out', () => {
  test('a writer commits while the reader is open and mid-read; the reader then sees the new row', async () => {
    const dataDir = dbCopy('rw')
    const reader = openOpencodeStore(dataDir)!
    const before = await reader.messages(DEMO)
    // Hold a read statement open mid-iteration while opencode writes.
    const spy = new Database(join(dataDir, 'opencode.db'), { readonly: true })
    const it = spy.query('SELECT id FROM message').iterate()
    it.next()
    const writer = new Database(join(dataDir, 'opencode.db'))
    writer.run('PRAGMA busy_timeout = 0') // fail at once instead of waiting if locked
    writer.run('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)', [
      'msg_zzzz_new',
      DEMO,
      1796206100000,
      1796206100000,
      JSON.stringify({ role: 'user', time: { created: 1796206100000 } }),
    ])
    writer.run('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)', [
      'prt_zzzz_new',
      'msg_zzzz_new',
      DEMO,
      1796206100001,
      1796206100001,
      JSON.stringify({ type: 'text', text: 'written while read' }),
    ])
    it.return?.()
    spy.close()
    const after = await reader.messages(DEMO)
    expect(after.length).toBe(before.length + 1)
    expect(after.at(-1)).toMatchObject({ id: 'prt_zzzz_new#0', role: 'user', text: 'written while read' })
    writer.close()
    reader.close()
  })

  test('the store cannot write', async () => {
    const dataDir = dbCopy('ro')
    const db = new Database(join(dataDir, 'opencode.db'), { readonly: true })
    expect(() => db.run('DELETE FROM message')).toThrow()
    db.close()
    // and openOpencodeStore uses the same read-only mode: rows are intact afterwards
    const s = openOpencodeStore(dataDir)!
    expect((await s.rawMessages(DEMO)).length).toBe(9)
    s.close()
  })
})

describe('2.x session_message rows are preferred over message/part', () => {
  test('projected rows are read back in seq order with their id and type', async () => {
    const dataDir = dbCopy('v2')
    const w = new Database(join(dataDir, 'opencode.db'))
    const ins = 'INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?, ?)'
    w.run(ins, [
      'msg_b',
      DEMO,
      'assistant',
      2,
      2,
      2,
      JSON.stringify({
        agent: 'build',
        model: { id: 'm', providerID: 'p' },
        time: { created: 2, completed: 3 },
        content: [{ type: 'text', id: 't', text: 'v2 answer' }],
      }),
    ])
    w.run(ins, ['msg_a', DEMO, 'user', 1, 1, 1, JSON.stringify({ time: { created: 1 }, text: 'v2 prompt' })])
    w.close()
    const s = openOpencodeStore(dataDir)!
    expect((await s.messages(DEMO)).map((d) => [d.id, d.text])).toEqual([
      ['msg_a#0', 'v2 prompt'],
      ['msg_b#0', 'v2 answer'],
    ])
    // a session without projected rows still reads the 1.x tables
    expect((await s.messages(PERMS)).length).toBe(14)
    s.close()
  })
})

describe('legacy JSON storage fallback', () => {
  const store = openOpencodeStore(join(FIX, 'legacy-json/opencode'))!

  test('no database → the storage/ files, same sessions and entries', async () => {
    expect(store.kind).toBe('json')
    expect((await store.listSessions()).map((s) => [s.id, s.directory])).toEqual([
      [PERMS, '/home/me/oc/proj'],
      [DEMO, '/home/me/oc/proj'],
    ])
    for (const id of [DEMO, PERMS]) expect(await store.messages(id)).toEqual(normalizeOpencodeMessages(captured(id)))
    expect(await store.messages('ses_nope')).toEqual([])
    expect((await store.rawMessages(DEMO, { limit: 2 })).length).toBe(2)
  })

  test('a corrupt message file becomes a parsed:false entry, not an error', async () => {
    const root = join(tmp, 'json-bad/opencode')
    cpSync(join(FIX, 'legacy-json/opencode'), root, { recursive: true })
    writeFileSync(join(root, `storage/message/${DEMO}/msg_zzzz_bad.json`), '{"id": "msg_zz')
    const s = openOpencodeStore(root)!
    const d = await s.messages(DEMO)
    expect(d.at(-1)).toMatchObject({ id: 'msg_zzzz_bad#0', parsed: false })
  })
})

describe('nothing to open', () => {
  test('an empty dir, a garbage db, a missing dir → undefined, no throw', () => {
    const empty = join(tmp, 'empty')
    mkdirSync(empty, { recursive: true })
    expect(openOpencodeStore(empty)).toBeUndefined()
    expect(openOpencodeStore(join(tmp, 'does-not-exist'))).toBeUndefined()
    const bad = join(tmp, 'bad')
    mkdirSync(bad, { recursive: true })
    writeFileSync(join(bad, 'opencode.db'), Buffer.from([0, 1, 2, 255, 254, 7, 7, 7]))
    expect(openOpencodeStore(bad)).toBeUndefined()
  })

  test('a channel build db (opencode-<channel>.db) is found', async () => {
    const dir = join(tmp, 'channel')
    mkdirSync(dir, { recursive: true })
    cpSync(join(FIX, 'data/opencode/opencode.db'), join(dir, 'opencode-dev.db'))
    const s = openOpencodeStore(dir)!
    expect((await s.listSessions()).length).toBe(2)
    s.close()
  })
})

describe('picking the pane session', () => {
  const sessions = [
    { id: 'a', directory: '/p', timeUpdated: 5 },
    { id: 'b', directory: '/p/', timeUpdated: 9 },
    { id: 'child', directory: '/p', parentId: 'b', timeUpdated: 20 },
    { id: 'other', directory: '/q', timeUpdated: 30 },
  ]
  test('by id when its directory is the cwd; a mismatch is no transcript', () => {
    expect(pickOpencodeSession('/p', sessions[0], sessions)?.id).toBe('a')
    expect(pickOpencodeSession('/p', sessions[3], sessions)).toBeUndefined()
  })
  test('else the newest top-level session in the cwd', () => {
    expect(pickOpencodeSession('/p', undefined, sessions)?.id).toBe('b')
    expect(pickOpencodeSession('/z', undefined, sessions)).toBeUndefined()
  })
})

describe('a database that is a symlink (read only through a real path inside the data dir)', () => {
  test('leaving the data dir: not opened', () => {
    const outside = dbCopy('outside-real')
    const dataDir = opencodeDataDir(join(tmp, 'outside-link'))
    mkdirSync(dataDir, { recursive: true })
    symlinkSync(join(outside, 'opencode.db'), join(dataDir, 'opencode.db'))
    expect(openOpencodeStore(dataDir)).toBeUndefined()
  })

  test('staying inside the data dir: followed', async () => {
    const dataDir = dbCopy('inside-link')
    renameSync(join(dataDir, 'opencode.db'), join(dataDir, 'opencode-real.db'))
    for (const x of ['-wal', '-shm'])
      if (existsSync(join(dataDir, `opencode.db${x}`))) renameSync(join(dataDir, `opencode.db${x}`), join(dataDir, `opencode-real.db${x}`))
    symlinkSync(join(dataDir, 'opencode-real.db'), join(dataDir, 'opencode.db'))
    const store = openOpencodeStore(dataDir)!
    try {
      expect(store.kind).toBe('sqlite')
      expect((await store.listSessions()).map((s) => s.id)).toEqual([PERMS, DEMO])
    } finally {
      store.close()
    }
  })
})
