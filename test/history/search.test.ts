// GET /search and its index (docs/bridge.md, "Every past conversation"): real
// sessions of all four agents, found by words, phrases and substrings, a hit opened
// at its entry; the live tail findable within 2 s; the bad queries; files deleted or
// truncated; a restart that goes on from where it stopped; a corrupt index file;
// a full disk.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { appendFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { ADMIN, FrameQueue, pairDevice, startBridge, tempDir, waitFor, type Bridge } from '../support/harness'
import { FAST, readOpening } from '../support/transcript-socket'
import { SEARCH_WAITING_MAX, type SearchResult } from '../../src/search/search-index'
import { historyHome, piUserLine, type HistoryHome } from '../support/history-home'

let b: Bridge
let h: HistoryHome
let dbDir: string

interface Answer {
  results: SearchResult[]
  took_ms: number
  indexed: { files: number; of: number; incomplete?: true }
}

const search = async (bridge: Bridge, q: string, extra = '') => (await bridge.json(`/search?q=${encodeURIComponent(q)}${extra}`)) as Answer
const searchOn = (dir: string) =>
  startBridge({ homes: h.homes, timing: FAST, deps: { projectRoots: [h.home], search: { path: join(dir, 'search.db'), startAfterMs: 0, pollMs: 100 } } })
/** the index has every session to its end */
const indexedAll = (bridge: Bridge) =>
  waitFor(async () => {
    const a = await search(bridge, 'zzzzzz')
    return a.indexed.of >= 5 && a.indexed.files === a.indexed.of && a
  }, 15_000)

beforeAll(async () => {
  h = historyHome()
  dbDir = tempDir('gothalo-search-db-')
  b = await searchOn(dbDir)
  await indexedAll(b)
})
afterAll(() => b?.stop())

describe('GET /search', () => {
  test("finds each kind's sessions by a word of their first prompt, marked, and the hit opens at its entry", async () => {
    const { sessions } = (await b.json('/sessions')) as { sessions: { agent_kind: string; session_id: string; title: string }[] }
    expect(new Set(sessions.map((s) => s.agent_kind))).toEqual(new Set(['claude', 'pi', 'codex', 'opencode']))
    for (const s of sessions) {
      const word = s.title.split(/\s+/).find((w) => /^[A-Za-z]{4,}$/.test(w))
      if (!word) continue
      const a = await search(b, word, `&kind=${s.agent_kind}`)
      const hit = a.results.find((r) => r.session_id === s.session_id)
      expect([s.agent_kind, word, hit !== undefined]).toEqual([s.agent_kind, word, true])
      expect(a.results.every((r) => r.agent_kind === s.agent_kind)).toBe(true)
      expect(hit!.matches.length).toBeGreaterThan(0)
      for (const [from, to] of hit!.matches) expect(hit!.snippet.slice(from, to).toLowerCase()).toBe(word.toLowerCase())
      // the hit opens where it matched
      const q = new FrameQueue(
        `${b.wsBase}/agent-transcript?session=${encodeURIComponent(`${s.agent_kind}:${s.session_id}`)}&around=${hit!.seq}&token=${ADMIN}`,
      )
      await q.opened
      const o = await readOpening(q)
      expect(o.entries[0].seq).toBe(hit!.seq)
      expect(JSON.stringify(o.entries[0]).toLowerCase()).toContain(word.toLowerCase())
      q.close()
    }
  })

  test("a hit's snippet is read from its own line, not through the session's transcript index", async () => {
    const c = b.app.decorator.counters
    const builds = c.jsonl.indexBuilds
    const lines = c.search!.snippetLines
    const a = await search(b, 'quick tour', '&kind=pi')
    expect(a.results.map((r) => r.session_id)).toContain(h.ids.pi)
    expect(c.search!.snippetLines).toBeGreaterThan(lines)
    expect(c.jsonl.indexBuilds).toBe(builds)
  })

  test('substrings of three characters or more, quoted phrases, every term required; tool summaries and results are searched', async () => {
    // pi's tour runs `echo hello from pi && uname -s`: the command is a tool call's summary, its output a result
    const cmd = await search(b, 'uname -s', '&kind=pi')
    expect(cmd.results.some((r) => r.session_id === h.ids.pi)).toBe(true)
    const out = await search(b, 'hello from pi')
    expect(out.results.length).toBeGreaterThan(0)
    const phrase = await search(b, '"quick tour"')
    expect(phrase.results.map((r) => r.session_id)).toContain(h.ids.pi)
    expect((await search(b, '"tour quick"')).results.map((r) => r.session_id)).not.toContain(h.ids.pi)
    // a substring inside a word
    expect((await search(b, 'uic', '&kind=pi')).results.map((r) => r.session_id)).toContain(h.ids.pi)
    // both terms must occur
    expect((await search(b, 'quick zqxjw', '&kind=pi')).results).toEqual([])
    // filters
    expect((await search(b, 'quick', `&project=${encodeURIComponent(h.dirs.codex)}`)).results.every((r) => r.project === h.dirs.codex)).toBe(true)
    expect((await search(b, 'quick', '&since=2099-01-01T00:00:00Z')).results).toEqual([])
    // relevance, then the newest first: the order is by rank; took_ms is reported
    const a = await search(b, 'the')
    expect(a.took_ms).toBeGreaterThanOrEqual(0)
    expect(a.results.length).toBeGreaterThan(1)
  })

  test('an entry with a character whose lower case is longer (Turkish İ) is still a hit, its match marked', async () => {
    const id = '01a30000-0000-7000-8000-0000000000b1'
    const file = join(dirname(h.files.pi), `2026-12-03T00-00-03-000Z_${id}.jsonl`)
    const header = `${JSON.stringify({ type: 'session', version: 3, id, timestamp: '2026-12-03T00:00:03.000Z', cwd: h.dirs.pi })}\n`
    // 'İ'.toLowerCase() is two UTF-16 units: the snippet's offsets must not be shifted by it, nor the hit lost
    writeFileSync(file, header + piUserLine(1, 'İstanbul: the quokkaservice deploy failed'))
    try {
      const hit = await waitFor(async () => (await search(b, 'quokkaservice')).results.find((r) => r.session_id === id), 3000, 'the entry with İ found')
      expect(hit.matches.map(([s, e]) => hit.snippet.slice(s, e))).toEqual(['quokkaservice'])
      // a term of non-ASCII letters, case-insensitive as the index is
      const tr = (await search(b, 'İSTANBUL')).results.find((r) => r.session_id === id)
      expect(tr?.matches.map(([s, e]) => tr.snippet.slice(s, e))).toEqual(['İstanbul'])
    } finally {
      rmSync(file)
    }
  })

  test('a session file rewritten in place, longer (pi migrating an old session): its new entries are found, the old ones not', async () => {
    const id = '01a30000-0000-7000-8000-0000000000b2'
    const file = join(dirname(h.files.pi), `2026-12-03T00-00-04-000Z_${id}.jsonl`)
    const header = `${JSON.stringify({ type: 'session', version: 3, id, timestamp: '2026-12-03T00:00:04.000Z', cwd: h.dirs.pi })}\n`
    writeFileSync(file, header + piUserLine(1, 'the old loganberry line') + piUserLine(2, 'and the old tamarillo line'))
    try {
      await waitFor(async () => (await search(b, 'tamarillo')).results.some((r) => r.session_id === id), 3000, 'the first version found')
      const { ino } = statSync(file)
      // the same inode, every line changed, the file longer
      writeFileSync(file, header + piUserLine(1, 'the new cloudberry line, a longer one') + piUserLine(2, 'and the new salmonberry line, longer too'))
      expect(statSync(file).ino).toBe(ino)
      await waitFor(async () => (await search(b, 'salmonberry')).results.some((r) => r.session_id === id && r.seq === 2), 3000, 'the second entry rewritten')
      await waitFor(async () => (await search(b, 'cloudberry')).results.some((r) => r.session_id === id && r.seq === 1), 3000, 'the first entry rewritten')
      expect((await search(b, 'loganberry')).results.filter((r) => r.session_id === id)).toEqual([])
    } finally {
      rmSync(file)
    }
  })

  test('bad input: a clear 400, and FTS5 syntax is text, never a 500', async () => {
    for (const [q, body] of [
      ['', 'q: what to search for'],
      ['   ', 'q: what to search for'],
      ['a', 'q: a word or phrase of at least 3 characters'],
      ['ab', 'q: a word or phrase of at least 3 characters'],
      ['" "', 'q: a word or phrase of at least 3 characters'],
      ['x'.repeat(1001), 'q: at most 1000 characters'],
      // NUL ends an FTS5 expression early ("unterminated string"): a separator, never a 500
      ['\u0000\u0000\u0000', 'q: a word or phrase of at least 3 characters'],
      ['"\u0000ab"', 'q: a word or phrase of at least 3 characters'],
    ] as const) {
      const r = await b.get(`/search?q=${encodeURIComponent(q)}`)
      expect([q.slice(0, 20), r.status, await r.text()]).toEqual([q.slice(0, 20), 400, body])
    }
    expect((await b.get('/search')).status).toBe(400)
    for (const [extra, body] of [
      ['&kind=vim', 'kind: one of claude, pi, opencode, codex'],
      ['&limit=0', 'limit: a whole number from 1 to 100'],
      ['&since=yesterday', 'since: an ISO 8601 time'],
    ] as const) {
      const r = await b.get(`/search?q=quick${extra}`)
      expect([extra, r.status, await r.text()]).toEqual([extra, 400, body])
    }
    for (const q of [
      'x'.repeat(1000),
      '""" quick',
      '***',
      'NEAR(',
      'NEAR(quick tour)',
      'quick AND',
      'AND OR NOT',
      '--x',
      'a:b:c',
      'body:quick',
      '"quick',
      'quick*',
      '^quick',
      '{quick}',
      '(((',
      'quick\u0000tour',
      '"quick\u0000"',
    ]) {
      const r = await b.get(`/search?q=${encodeURIComponent(q)}`)
      expect([q.slice(0, 20), r.status]).toEqual([q.slice(0, 20), 200])
      await r.json()
    }
    // an FTS5 keyword is found as the text it is
    const and = await search(b, 'AND', '&kind=pi')
    expect(and.results.every((r) => r.snippet.toLowerCase().includes('and'))).toBe(true)
  })

  test('odd values: a lone surrogate, combining marks, emoji, a path that climbs as project, an impossible since: answered, never a 500', async () => {
    for (const raw of ['%ED%A0%80abc', '%CC%81%CC%81%CC%81', '%F0%9F%98%80%F0%9F%98%80%F0%9F%98%80', '%EF%BF%BF%EF%BF%BF%EF%BF%BF', `${'abc%20'.repeat(40)}`]) {
      const r = await b.get(`/search?q=${raw}`)
      expect([raw.slice(0, 20), r.status]).toEqual([raw.slice(0, 20), 200])
      await r.json()
    }
    for (const extra of [`&project=${encodeURIComponent('../../../etc')}`, '&project=%00', `&project=${encodeURIComponent(h.home)}/..`]) {
      const a = await search(b, 'quick', extra)
      expect([extra, a.results]).toEqual([extra, []])
    }
    for (const since of ['9999-99-99', '0000-01-01T00:00:00Z', '2026-01-01T25:61:00Z']) {
      const r = await b.get(`/search?q=quick&since=${since}`)
      expect([since, r.status === 200 || r.status === 400]).toEqual([since, true])
      await r.text()
    }
  })

  test('a burst of searches from one token: a few wait their turn, the rest are 429 with Retry-After, and the bridge answers meanwhile', async () => {
    const asked = Array.from({ length: 40 }, () => b.get('/search?q=the&limit=100'))
    const health = b.get('/healthz')
    const answers = await Promise.all(asked)
    expect((await health).status).toBe(200)
    const statuses = answers.map((r) => r.status)
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([])
    const busy = answers.filter((r) => r.status === 429)
    expect(busy.length).toBeGreaterThan(0)
    expect(busy[0]!.headers.get('retry-after')).toBe('1')
    expect(await busy[0]!.text()).toBe(`busy: ${SEARCH_WAITING_MAX} searches already waiting, try again`)
    for (const r of answers) if (r !== busy[0]) await r.arrayBuffer()
    // and the next one is answered
    expect((await b.get('/search?q=the')).status).toBe(200)
  })

  test("GET /sessions gives an indexed session's entries: what its transcript holds", async () => {
    const { sessions } = (await b.json('/sessions?kind=pi')) as { sessions: { session_id: string; entries?: number }[] }
    const pi = sessions.find((s) => s.session_id === h.ids.pi)!
    const q = new FrameQueue(`${b.wsBase}/agent-transcript?session=${encodeURIComponent(`pi:${h.ids.pi}`)}&token=${ADMIN}`)
    await q.opened
    const o = await readOpening(q)
    q.close()
    expect(pi.entries).toBe(o.hello.total)
  })

  test('scope: read; no token is 401', async () => {
    expect((await b.get('/search?q=quick', null)).status).toBe(401)
    const { token } = await pairDevice(b, 'reader', ['read'])
    expect((await b.get('/search?q=quick', token)).status).toBe(200)
  })

  test('a new entry is findable within 2 s; a deleted file drops its session; a truncated one loses the entries cut', async () => {
    const id = '01a30000-0000-7000-8000-0000000000aa'
    const file = join(dirname(h.files.pi), `2026-12-03T00-00-02-000Z_${id}.jsonl`)
    const header = `${JSON.stringify({ type: 'session', version: 3, id, timestamp: '2026-12-03T00:00:02.000Z', cwd: h.dirs.pi })}\n`
    writeFileSync(file, header + piUserLine(1, 'the first of the kumquats'))
    await waitFor(async () => (await search(b, 'kumquats')).results.some((r) => r.session_id === id), 2000, 'a new session found')
    appendFileSync(file, piUserLine(2, 'then the persimmonade arrived'))
    const t0 = Date.now()
    await waitFor(async () => (await search(b, 'persimmonade')).results.some((r) => r.session_id === id && r.seq === 2), 2000, 'a new entry found')
    expect(Date.now() - t0).toBeLessThan(2000)
    // truncated to its first entry: the second is not found any more
    writeFileSync(file, header + piUserLine(1, 'the first of the kumquats'))
    await waitFor(async () => (await search(b, 'persimmonade')).results.every((r) => r.session_id !== id), 3000, 'the cut entry gone')
    // indexed again from its start: what it still holds is found
    await waitFor(async () => (await search(b, 'kumquats')).results.some((r) => r.session_id === id), 3000, 'the first entry found again')
    rmSync(file)
    await waitFor(async () => (await search(b, 'kumquats')).results.length === 0, 3000, 'the deleted session gone')
  })
})

describe('the index file', () => {
  test('a restart goes on from where it stopped: nothing is indexed again', async () => {
    const dir = tempDir('gothalo-search-restart-')
    const first = await searchOn(dir)
    await indexedAll(first)
    const written = first.app.decorator.counters.search!.entriesWritten
    expect(written).toBeGreaterThan(20)
    // the session files' text came from their transcript index pass (the tap), not a read of its own
    expect(first.app.decorator.counters.search!.bytesTapped).toBeGreaterThan(10_000)
    await first.stop()
    const second = await searchOn(dir)
    try {
      const s = second.app.decorator.counters.search!
      await waitFor(() => s.passes >= 2, 5000, 'two passes')
      expect((await search(second, 'quick')).results.map((r) => r.session_id)).toContain(h.ids.pi)
      expect([s.entriesWritten, s.readBack, s.bytesTapped]).toEqual([0, 0, 0])
    } finally {
      await second.stop()
    }
  })

  test('a session file rewritten in place, longer, while the bridge was down: indexed again from its start', async () => {
    const id = '01a30000-0000-7000-8000-0000000000b3'
    const file = join(dirname(h.files.pi), `2026-12-03T00-00-05-000Z_${id}.jsonl`)
    const header = `${JSON.stringify({ type: 'session', version: 3, id, timestamp: '2026-12-03T00:00:05.000Z', cwd: h.dirs.pi })}\n`
    writeFileSync(file, header + piUserLine(1, 'the old boysenberry line') + piUserLine(2, 'and the old rambutan line'))
    const dir = tempDir('gothalo-search-rewrite-')
    try {
      const first = await searchOn(dir)
      await waitFor(async () => (await search(first, 'rambutan')).results.some((r) => r.session_id === id), 5000, 'the first version found')
      await first.stop()
      writeFileSync(file, header + piUserLine(1, 'the new jaboticaba line, a longer one') + piUserLine(2, 'and the new cupuacu line, longer too'))
      const second = await searchOn(dir)
      try {
        await waitFor(async () => (await search(second, 'cupuacu')).results.some((r) => r.session_id === id && r.seq === 2), 5000, 'the second entry')
        await waitFor(async () => (await search(second, 'jaboticaba')).results.some((r) => r.session_id === id && r.seq === 1), 3000, 'the first entry')
      } finally {
        await second.stop()
      }
    } finally {
      rmSync(file)
    }
  }, 20_000)

  test('a corrupt or foreign file in its place is rebuilt, with a log line', async () => {
    for (const junk of ['not a database at all'.repeat(300), 'SQLite format 3\u0000' + 'x'.repeat(5000)]) {
      const dir = tempDir('gothalo-search-corrupt-')
      writeFileSync(join(dir, 'search.db'), junk)
      const c = await searchOn(dir)
      try {
        expect(c.logs.some((l) => l.includes('search index') && l.includes('rebuilding it from the sessions'))).toBe(true)
        await indexedAll(c)
        expect((await search(c, 'quick')).results.map((r) => r.session_id)).toContain(h.ids.pi)
      } finally {
        await c.stop()
      }
    }
    // another program's database
    const dir = tempDir('gothalo-search-foreign-')
    const { Database } = await import('bun:sqlite')
    const other = new Database(join(dir, 'search.db'))
    other.run('CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)')
    other.close()
    const c = await searchOn(dir)
    try {
      expect(c.logs.some((l) => l.includes('a database of something else'))).toBe(true)
      await indexedAll(c)
    } finally {
      await c.stop()
    }
  })

  test('a place where no index file can be made: the bridge starts, the index is kept in memory, with a log line', async () => {
    const dir = tempDir('gothalo-search-nowhere-')
    writeFileSync(join(dir, 'file'), 'a file, not a directory')
    const c = await startBridge({
      homes: h.homes,
      timing: FAST,
      deps: { projectRoots: [h.home], search: { path: join(dir, 'file', 'search.db'), startAfterMs: 0, pollMs: 100 } },
    })
    try {
      expect(c.logs.some((l) => l.includes('cannot be opened') && l.includes('kept in memory'))).toBe(true)
      await indexedAll(c)
      expect((await search(c, 'quick')).results.map((r) => r.session_id)).toContain(h.ids.pi)
    } finally {
      await c.stop()
    }
  })

  test('a full disk: search says incomplete, transcripts keep working', async () => {
    const dir = tempDir('gothalo-search-full-')
    const c = await startBridge({
      homes: h.homes,
      timing: FAST,
      deps: { projectRoots: [h.home], search: { path: join(dir, 'search.db'), startAfterMs: 0, pollMs: 100, maxPages: 12 } },
    })
    try {
      const a = await waitFor(async () => {
        const r = await search(c, 'quick')
        return r.indexed.incomplete && r
      }, 10_000)
      expect(a.indexed.incomplete).toBe(true)
      expect(c.logs.some((l) => l.includes('search results are incomplete'))).toBe(true)
      const q = new FrameQueue(`${c.wsBase}/agent-transcript?session=${encodeURIComponent(`pi:${h.ids.pi}`)}&token=${ADMIN}`)
      await q.opened
      const o = await readOpening(q)
      expect(o.entries.length).toBeGreaterThan(3)
      q.close()
    } finally {
      await c.stop()
    }
  })
})
