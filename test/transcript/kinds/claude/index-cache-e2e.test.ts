// The on-disk index cache through the real app: a bridge restarted on the same
// data dir serves a Claude session it indexed before without reading it again
// (the roster's facts come back with the index), extends a session that grew,
// and rebuilds from a corrupt cache file with the same frames as ever.
// Each app has its own JSONL files, so a new bridge starts with nothing in
// memory, as a new process does.
import { afterEach, expect, test } from 'bun:test'
import { appendFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FakePane } from '../../../../src/demo/fake-herdr'
import { ADMIN, FrameQueue, fakePane, startBridge, waitFor, type Bridge } from '../../../support/harness'
import { claudeHome, type ClaudeHome } from '../../../support/claude-home'

const PANE = 'w1:p2'
const SID = '31768c85-8856-4ba3-9323-9014ac9e2d13'
const CWD = '/home/me/cc-subagents/proj'
const FAST = { tailPollMs: 50, sessionPollMs: 100, rosterPollMs: 100 }

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const pane: FakePane = fakePane('claude', {
  pane_id: PANE,
  cwd: CWD,
  agent: { state_change_seq: 1, cwd: CWD, agent_session: { agent: 'claude', kind: 'id', source: 'herdr:claude', value: SID } },
})

/** A bridge process's life: start on the data dir, open one socket, read the opening sequence, stop. */
async function life(h: ClaudeHome, dataDir: string) {
  const b: Bridge = await startBridge({
    state: { panes: [pane] },
    homes: { claudeDir: h.dir },
    timing: FAST,
    deps: { indexCacheDir: join(dataDir, 'index-cache') },
  })
  // this bridge's own counters: they start from none
  const { jsonl: jsonlCounters, roster, indexCache } = b.app.decorator.counters
  const before = { builds: jsonlCounters.indexBuilds, scanned: jsonlCounters.bytesScanned, parent: roster.parentBytesRead, saves: indexCache.saves }
  const q = new FrameQueue(`${b.wsBase}/agent-transcript?pane=${encodeURIComponent(PANE)}&token=${ADMIN}`)
  await q.opened
  const hello = await q.next()
  const frames = await q.until((f) => f.type === 'backlog_complete')
  const after = { builds: jsonlCounters.indexBuilds, scanned: jsonlCounters.bytesScanned, parent: roster.parentBytesRead }
  q.close()
  await b.stop()
  // an index built or extended is saved in the background (at the build, and when released): wait for those writes,
  // the release's too (it adds the newest page): a test that spoils the cache next must find nothing left to land on it
  if (after.builds > before.builds || after.scanned > before.scanned) await waitFor(() => indexCache.saves > before.saves || undefined, 5000, 'a saved index')
  await waitFor(() => b.app.decorator.jsonl.holding().heldFiles === 0 || undefined, 5000, 'the timeline released')
  await b.app.decorator.indexCache.flush(5000)
  return {
    hello,
    entries: frames.filter((f) => f.type === 'entry').map((f) => f.entry),
    built: after.builds - before.builds,
    scanned: after.scanned - before.scanned,
    parentRead: after.parent - before.parent,
    /** page reads, and those served from entries held (no line read) */
    reads: jsonlCounters.reads,
    recentHits: jsonlCounters.recentHits,
    logs: b.logs,
    indexCache,
    /** waits for the index cache's writes still in flight (the save made at release) */
    flush: () => b.app.decorator.indexCache.flush(5000),
  }
}

function setup() {
  const h = claudeHome('cc-subagents')
  const dataDir = mkdtempSync(join(tmpdir(), 'gothalo-data-'))
  cleanups.push(
    () => h.cleanup(),
    () => rmSync(dataDir, { recursive: true, force: true }),
  )
  return { h, dataDir, session: join(h.proj, `${SID}.jsonl`) }
}

test('restart, session unchanged: same hello, roster and backlog, and the session is not read at all', async () => {
  const { h, dataDir } = setup()
  const first = await life(h, dataDir)
  expect(first.built).toBe(1)
  expect(first.hello.subagents.length).toBe(5)
  expect(first.indexCache.loads).toBe(0)
  const again = await life(h, dataDir)
  expect(again.indexCache.loads).toBe(1)
  expect({ built: again.built, scanned: again.scanned, parentRead: again.parentRead }).toEqual({ built: 0, scanned: 0, parentRead: 0 })
  expect(again.hello).toEqual(first.hello)
  expect(again.entries).toEqual(first.entries)
})

test('restart after the session grew: only the new bytes are read; the new entry and its roster change are served', async () => {
  const { h, dataDir, session } = setup()
  const first = await life(h, dataDir)
  const line =
    JSON.stringify({
      parentUuid: null,
      type: 'assistant',
      uuid: 'grown-1',
      timestamp: '2026-12-02T10:00:00Z',
      message: { role: 'assistant', content: [{ type: 'text', text: 'after the restart' }] },
    }) + '\n'
  appendFileSync(session, line)
  const again = await life(h, dataDir)
  expect(again.built).toBe(0)
  expect(again.scanned).toBe(Buffer.byteLength(line))
  expect(again.hello.total).toBe(first.hello.total + 1)
  expect(again.entries.at(-1).id).toBe('grown-1#0')
  expect(again.hello.subagents).toEqual(first.hello.subagents)
})

test('restart with a corrupt cache file: it is ignored, logged, rebuilt, and the frames are the same', async () => {
  const { h, dataDir } = setup()
  const first = await life(h, dataDir)
  const dir = join(dataDir, 'index-cache')
  for (const name of readdirSync(dir)) {
    const f = join(dir, name)
    const b = readFileSync(f)
    b[b.length - 30] ^= 0xff
    writeFileSync(f, b)
  }
  const again = await life(h, dataDir)
  expect(again.built).toBe(1)
  expect(again.logs.some((l) => l.includes('index cache: ignored') && l.includes('checksum mismatch'))).toBe(true)
  expect(again.hello).toEqual(first.hello)
  expect(again.entries).toEqual(first.entries)
  // and the rebuilt index is saved again for the next start
  expect((await life(h, dataDir)).built).toBe(0)
})

test('restart after the session was replaced by a shorter one: rebuilt, the new content served', async () => {
  const { h, dataDir, session } = setup()
  await life(h, dataDir)
  const kept = readFileSync(session, 'utf8').split('\n').slice(0, 9).join('\n') + '\n'
  rmSync(session)
  writeFileSync(session, kept)
  const again = await life(h, dataDir)
  expect(again.built).toBe(1)
  const fresh = await life(h, dataDir) // and that one is what the cache now holds
  expect(fresh.built).toBe(0)
  expect(fresh.hello.total).toBe(again.hello.total)
  expect(fresh.hello.subagents).toEqual(again.hello.subagents)
})

test('restart, session unchanged: the newest page is sent from the saved entries, no line read or normalized', async () => {
  const { h, dataDir } = setup()
  const first = await life(h, dataDir)
  await first.flush() // the save made at release, which holds the page the phone got
  const again = await life(h, dataDir)
  expect(again.entries).toEqual(first.entries)
  expect(again.reads).toBeGreaterThan(0)
  expect(again.recentHits).toBe(again.reads)
})

test('saved entries that do not fit the index are a corrupt cache: ignored, and the page is read as ever', async () => {
  const { h, dataDir } = setup()
  const first = await life(h, dataDir)
  await first.flush()
  const dir = join(dataDir, 'index-cache')
  const file = join(dir, readdirSync(dir).find((n) => n.endsWith('.idx'))!)
  // shift every saved seq by one and re-seal the file, as a foreign writer could
  const buf = readFileSync(file)
  const jsonBytes = buf.readUInt32LE(8)
  const header = JSON.parse(buf.toString('utf8', 16, 16 + jsonBytes))
  expect(header.newest.length).toBe(first.entries.length)
  header.newest = header.newest.map((e: { seq: number }) => ({ ...e, seq: e.seq + 1 }))
  const json = Buffer.from(JSON.stringify(header))
  const pad = (json.length + 7) & ~7
  const rows = buf.subarray(16 + ((jsonBytes + 7) & ~7), buf.length - 8)
  const out = Buffer.alloc(16 + pad + rows.length + 8, 0x20)
  buf.copy(out, 0, 0, 16)
  out.writeUInt32LE(json.length, 8)
  json.copy(out, 16)
  rows.copy(out, 16 + pad)
  out.writeBigUInt64LE(Bun.hash.wyhash(out.subarray(0, out.length - 8), 0n), out.length - 8)
  writeFileSync(file, out)
  const again = await life(h, dataDir)
  expect(again.indexCache).toMatchObject({ rejects: 1, lastReject: 'newest entries do not fit the index' })
  expect(again.entries).toEqual(first.entries)
})
