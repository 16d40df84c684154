// The session finder behind GET /projects, warm: what it keeps between listings
// (directory listings by mtime, heads by size+mtime+inode, the list itself) must
// never hide a change: a session added to a directory already listed, one
// removed, one rewritten, a directory that came.
import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { copyFileSync, mkdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { SessionFinder, projectsOf } from '../../src/projects/listing'
import { rootsOf } from '../../src/projects/roots'
import { homesIn, tempDir } from '../support/harness'

const line = (o: unknown) => `${JSON.stringify(o)}\n`
const claudeSession = (cwd: string, prompt: string) =>
  line({ type: 'user', cwd, sessionId: 's', uuid: 'u1', timestamp: '2026-01-01T00:00:01Z', message: { role: 'user', content: prompt } })

/** A fake HOME whose Claude Code project `<home>/p` holds one session, a1 ("first"). */
function oneSession() {
  const home = tempDir('gothalo-finder-')
  const homes = homesIn(home)
  const cwd = join(home, 'p')
  const dir = join(homes.claudeDir, 'projects', cwd.replace(/[/.]/g, '-'))
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'a1.jsonl'), claudeSession(cwd, 'first'))
  return { home, homes, cwd, dir }
}

describe('SessionFinder, warm', () => {
  test('nothing changed: the same list back, and the same listing', async () => {
    const home = tempDir('gothalo-finder-')
    const homes = homesIn(home)
    const cwd = join(home, 'p')
    const dir = join(homes.claudeDir, 'projects', cwd.replace(/[/.]/g, '-'))
    mkdirSync(dir, { recursive: true })
    const old = Date.now() / 1000 - 3600
    writeFileSync(join(dir, 'a1.jsonl'), claudeSession(cwd, 'first'))
    utimesSync(dir, old, old)
    const f = new SessionFinder(homes)
    const one = await f.find()
    const two = await f.find()
    expect(two).toBe(one)
    const roots = rootsOf([home])
    expect(projectsOf(two, [], roots, 0)).toEqual(projectsOf(one, [], roots, 0))
    f.close()
  })

  test('a session added to a directory already listed, one rewritten, one removed, a new directory: each seen at once', async () => {
    const { home, homes, cwd, dir } = oneSession()
    // the directory's mtime long past: its listing is trusted until it changes
    const old = Date.now() / 1000 - 3600
    utimesSync(join(dir, 'a1.jsonl'), old, old)
    utimesSync(dir, old, old)
    const f = new SessionFinder(homes)
    const titles = async () => (await f.find()).map((s) => `${s.id}:${s.title}`).sort()
    expect(await titles()).toEqual(['a1:first'])
    writeFileSync(join(dir, 'a2.jsonl'), claudeSession(cwd, 'second'))
    expect(await titles()).toEqual(['a1:first', 'a2:second'])
    // rewritten in place with the same size and mtime: the inode tells (a rename over it)
    writeFileSync(join(dir, 'tmp'), claudeSession(cwd, 'fresh'))
    utimesSync(join(dir, 'tmp'), old, old)
    renameSync(join(dir, 'tmp'), join(dir, 'a1.jsonl'))
    expect(await titles()).toEqual(['a1:fresh', 'a2:second'])
    rmSync(join(dir, 'a2.jsonl'))
    expect(await titles()).toEqual(['a1:fresh'])
    const other = join(home, 'q')
    const dir2 = join(homes.claudeDir, 'projects', other.replace(/[/.]/g, '-'))
    mkdirSync(dir2)
    writeFileSync(join(dir2, 'b1.jsonl'), claudeSession(other, 'elsewhere'))
    expect(await titles()).toEqual(['a1:fresh', 'b1:elsewhere'])
    f.close()
  })

  test('sessionAt: a session file named before any listing saw it is in the next listing; other paths are no session', async () => {
    const { home, homes, cwd, dir } = oneSession()
    const f = new SessionFinder(homes)
    const ids = async () => (await f.find()).map((s) => s.id).sort()
    expect(await ids()).toEqual(['a1'])
    writeFileSync(join(dir, 'a2.jsonl'), claudeSession(cwd, 'second'))
    expect(f.sessionAt(join(dir, 'a2.jsonl'))).toMatchObject({ kind: 'claude', id: 'a2', cwd, title: 'second', file: join(dir, 'a2.jsonl') })
    // its head, read for sessionAt, must not make the listing think nothing changed
    expect(await ids()).toEqual(['a1', 'a2'])
    mkdirSync(join(dir, 'a2', 'subagents'), { recursive: true })
    writeFileSync(join(dir, 'a2', 'subagents', 'agent-x.jsonl'), claudeSession(cwd, 'sub'))
    writeFileSync(join(dir, 'notes.txt'), claudeSession(cwd, 'text'))
    writeFileSync(join(dir, 'nocwd.jsonl'), line({ type: 'summary', summary: 'x' }))
    const elsewhere = join(home, 'other', 'projects', 'p')
    mkdirSync(elsewhere, { recursive: true })
    writeFileSync(join(elsewhere, 'a3.jsonl'), claudeSession(cwd, 'elsewhere'))
    for (const p of [
      join(dir, 'a2', 'subagents', 'agent-x.jsonl'),
      join(dir, 'notes.txt'),
      join(dir, 'nocwd.jsonl'),
      join(elsewhere, 'a3.jsonl'),
      join(dir, 'gone.jsonl'),
      dir,
    ])
      expect(f.sessionAt(p)).toBeUndefined()
    f.close()
  })
})

describe("SessionFinder, opencode's database", () => {
  const FIX_DB = join(import.meta.dir, '../../fixtures/opencode/data/opencode/opencode.db')
  const opencodeIds = async (f: SessionFinder) =>
    (await f.find())
      .filter((s) => s.kind === 'opencode')
      .map((s) => s.id)
      .sort()

  test('opencode installed after the bridge started: its sessions are listed without a restart', async () => {
    const { homes } = oneSession()
    const f = new SessionFinder(homes)
    expect(await opencodeIds(f)).toEqual([])
    const data = join(homes.xdgDataHome, 'opencode')
    mkdirSync(data, { recursive: true })
    copyFileSync(FIX_DB, join(data, 'opencode.db'))
    expect((await opencodeIds(f)).length).toBeGreaterThan(0)
    f.close()
  })

  test('its database locked for a moment (opencode writing): its sessions stay listed, not gone until the next look', async () => {
    const { homes } = oneSession()
    const data = join(homes.xdgDataHome, 'opencode')
    mkdirSync(data, { recursive: true })
    const path = join(data, 'opencode.db')
    copyFileSync(FIX_DB, path)
    // a rollback journal: a writer's exclusive lock keeps every reader out (as opencode's checkpoint may, briefly)
    const writer = new Database(path)
    writer.exec('PRAGMA journal_mode = DELETE')
    const f = new SessionFinder(homes)
    const before = await opencodeIds(f)
    expect(before.length).toBeGreaterThan(0)
    writer.exec('BEGIN EXCLUSIVE')
    try {
      expect(await opencodeIds(f)).toEqual(before)
    } finally {
      writer.exec('ROLLBACK')
      writer.close()
    }
    f.close()
  })
})
