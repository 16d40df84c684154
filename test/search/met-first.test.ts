// A session file a transcript socket opens before the search index has listed it
// (a phone opens yesterday's session right after the bridge started, or a session
// begun a moment ago): the index takes its lines from that socket's own index
// pass, so the file is read once, never read back by seq (docs/bridge.md, "the
// index": "no second read of any file"). Files that are no session are left out.
import { afterEach, expect, test } from 'bun:test'
import { mkdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { agentShowing } from '../../src/history/session-open'
import { SessionFinder, type FoundSession } from '../../src/projects/listing'
import type { SearchIndex } from '../../src/search/search-index'
import { parseQuery } from '../../src/search/text'
import { normalizeClaudeLine } from '../../src/transcript/kinds/claude/normalize'
import type { Timeline } from '../../src/transcript/timeline'
import { tempDir } from '../support/harness'
import { historyHome, piUserLine } from '../support/history-home'
import { indexedAll, searchIndexParts } from '../support/search-index'

let open: { index: SearchIndex; held: Timeline[] } | undefined
afterEach(async () => {
  for (const t of open?.held ?? []) t.release()
  await open?.index.close()
  open = undefined
})

/** Opens a session's transcript as a socket does, and holds it. */
async function openAsSocket(parts: ReturnType<typeof searchIndexParts>, s: FoundSession): Promise<Timeline> {
  const r = await parts.sources.forKind(s.kind)!.resolve(agentShowing(s, ''), {})
  if (!r.ok) throw new Error(`${s.kind}:${s.id} did not open`)
  return r.timeline
}

const hits = async (index: SearchIndex, q: string) =>
  (await index.search(parseQuery(q)!, { limit: 50 }, [])).map((r) => `${r.agent_kind}:${r.session_id}#${r.seq}`)

test('a session a socket opened first is indexed from that pass: read once, found, nothing read back', async () => {
  const h = historyHome()
  const parts = searchIndexParts(h, tempDir('gothalo-search-met-'))
  open = { index: parts.index, held: [] }
  const finder = new SessionFinder(h.homes)
  const listed = await finder.find()
  // what the tap asks of one path is what the listing says of it, for every file-backed kind
  const files = listed.filter((s) => s.file)
  expect(files.map((s) => s.kind).sort()).toEqual(['claude', 'codex', 'codex', 'pi'])
  expect(files.map((s) => new SessionFinder(h.homes).sessionAt(s.file!))).toEqual(files)
  const claude = listed.find((s) => s.kind === 'claude')!
  const tl = await openAsSocket(parts, claude)
  open.held.push(tl)
  expect(parts.jsonl.counters.indexBuilds).toBe(1)
  expect(parts.index.counters.bytesTapped).toBeGreaterThan(statSync(h.files.claude).size / 2)

  await indexedAll(parts.index)
  const c = parts.index.counters
  expect(c.readBack).toBe(0)
  expect(c.storeEntries).toBeGreaterThan(0) // opencode's sessions: read by seq, their only read
  // each session file scanned once: the socket's claude pass, and one pass each for pi and the two codex files
  expect(parts.jsonl.counters.indexBuilds).toBe(4)
  const word = claude.title.split(/\s+/).find((w) => /^[A-Za-z]{4,}$/.test(w))!
  expect(await hits(parts.index, word)).toContain(`claude:${claude.id}#1`)
  // the index holds every entry the socket's transcript holds
  expect(parts.index.entriesOf(claude)).toBe(tl.total())
})

test("one a socket meets while the index looks the sessions over is kept, not dropped as unlisted, and later found by the pass's own look", async () => {
  const h = historyHome()
  const real = new SessionFinder(h.homes)
  let hold: Promise<void> | undefined
  let inLook: (() => void) | undefined
  // the look over the sessions lists them as they were, then waits (a slow disk)
  const finder = Object.assign(Object.create(real) as SessionFinder, {
    find: async () => {
      const listed = await real.find()
      inLook?.()
      await hold
      return listed
    },
  })
  // no passes but those the test starts
  const parts = searchIndexParts(h, tempDir('gothalo-search-met-'), finder, 3_600_000)
  const index = parts.index
  open = { index, held: [] }
  const pass = async () => {
    const done = index.nextPass()
    index.start()
    await done
    await index.settled()
  }
  await pass()
  const before = index.progress()
  expect(before.files).toBe(before.of)

  let release!: () => void
  hold = new Promise((r) => (release = r))
  const looking = new Promise<void>((r) => (inLook = r))
  const held = pass()
  await looking
  // a session begun now, opened by a phone while the index waits on its look
  const id = '01a30000-0000-7000-8000-0000000000bb'
  const file = join(dirname(h.files.pi), `2026-12-03T00-00-03-000Z_${id}.jsonl`)
  const header = `${JSON.stringify({ type: 'session', version: 3, id, timestamp: '2026-12-03T00:00:03.000Z', cwd: h.dirs.pi })}\n`
  writeFileSync(file, header + piUserLine(1, 'a basket of loquats'))
  const s = real.sessionAt(file)!
  expect([s.kind, s.id, s.cwd]).toEqual(['pi', id, h.dirs.pi])
  open.held.push(await openAsSocket(parts, s))
  expect(index.progress().of).toBe(before.of + 1)
  release()
  await held
  // the pass whose look did not list it kept it
  expect(index.progress()).toEqual({ files: before.of + 1, of: before.of + 1 })
  hold = undefined
  inLook = undefined
  await pass()
  expect(index.progress()).toEqual({ files: before.of + 1, of: before.of + 1 })
  expect(await hits(index, 'loquats')).toEqual([`pi:${id}#1`])
  expect(index.counters.readBack).toBe(0)
})

test('a file that is no listed session (a subagent file, another directory, outside the project roots) is not indexed', async () => {
  const h = historyHome()
  const parts = searchIndexParts(h, tempDir('gothalo-search-met-'))
  open = { index: parts.index, held: [] }
  await indexedAll(parts.index)
  const before = parts.index.progress().of
  const line = `${JSON.stringify({ type: 'user', uuid: 'u1', timestamp: '2026-12-03T00:00:00.000Z', cwd: h.dirs.claude, message: { role: 'user', content: 'hunting for the quokka' } })}\n`
  // beside the project's sessions, one directory deeper (where a session's subagents write)
  const sub = join(dirname(h.files.claude), '7444533a-645f-44b8-9f33-73e27f0ddc04', 'subagents', 'agent-a1.jsonl')
  // a session file's name in a directory no agent keeps sessions in
  const elsewhere = join(tempDir('gothalo-search-elsewhere-'), 'projects', 'p', 'x.jsonl')
  // a session of the agent's own directory whose project lies outside the roots
  const outside = join(h.homes.claudeDir, 'projects', '-elsewhere', '0b9c0000-0000-4000-8000-000000000001.jsonl')
  for (const f of [sub, elsewhere, outside]) {
    mkdirSync(dirname(f), { recursive: true })
    writeFileSync(f, f === outside ? line.replace(h.dirs.claude, '/elsewhere') : line)
    open.held.push(await parts.jsonl.acquire(f, normalizeClaudeLine))
  }
  expect(open.held.map((t) => t.total())).toEqual([1, 1, 1])
  // not even for a moment (a search in between would find them)
  expect(parts.index.progress().of).toBe(before)
  await parts.index.nextPass()
  await parts.index.settled()
  expect(parts.index.progress().of).toBe(before)
  expect(await hits(parts.index, 'quokka')).toEqual([])
})
