// Codex's compressed and archived rollouts (docs/bridge.md, "Every past conversation"):
// codex rewrites a rollout older than 7 days to <name>.jsonl.zst in place (the plain file
// wins while both exist) and `codex archive` moves rollouts to the flat archived_sessions/.
// History lists them, the session socket opens them with the entries the plain file gives,
// search finds them (also once a session it indexed plain is compressed), a corrupt one is
// a clear error that costs the others nothing, the unpacked copies stay within their bound,
// and a zstd bomb is refused without filling memory or disk.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { createZstdCompress, zstdCompressSync } from 'node:zlib'
import { ADMIN, FrameQueue, ROOT, startBridge, tempDir, waitFor, WS_HANDSHAKE, type Bridge } from '../support/harness'
import { FAST, pageToStart, readOpening } from '../support/transcript-socket'
import { historyBridge, historyHome, type HistoryHome } from '../support/history-home'

let b: Bridge
let h: HistoryHome
let unpackDir: string
/** the unpacked copies' bound in this bridge: more than the largest session here, less than two of them */
const CACHE_MAX = 200_000
/** one session's unpacked content at most, in this bridge */
const UNPACKED_MAX = 64 * 1024 * 1024

/** A corpus rollout with every `/home/me/` (or capture directory) pointed at the test home (its cwd made), as text. */
function corpusRollout(fixture: string): { name: string; text: string; id: string } {
  const day = join(ROOT, 'fixtures/codex', fixture, 'sessions')
  const find = (d: string): string => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name)
      if (e.isDirectory()) return find(p)
      if (e.name.startsWith('rollout-')) return p
    }
    throw new Error(`no rollout in ${d}`)
  }
  const file = find(day)
  const text = readFileSync(file, 'utf8').replaceAll('/home/me/', `${h.home}/`).replaceAll('/tmp/gothalo-capture/', `${h.home}/`)
  const cwd = (JSON.parse(text.slice(0, text.indexOf('\n'))) as { payload: { cwd: string } }).payload.cwd
  mkdirSync(cwd, { recursive: true })
  return { name: basename(file), text, id: /([0-9a-f-]{36})\.jsonl$/.exec(file)![1]! }
}

const codexDir = () => h.homes.codexDir!
const archived = () => join(codexDir(), 'archived_sessions')
const dayDir = () => dirname(h.files.codex[0]!)

const sessionUrl = (ref: string, extra = '') => `${b.wsBase}/agent-transcript?session=${encodeURIComponent(ref)}&token=${ADMIN}${extra}`
async function entriesOf(id: string): Promise<any[]> {
  const q = new FrameQueue(sessionUrl(`codex:${id}`))
  await q.opened
  const o = await readOpening(q)
  const older = o.hello.has_older ? await pageToStart(q, o.hello.oldest_loaded_seq) : []
  q.close()
  return [...older, ...o.entries]
}
async function upgrade(ref: string): Promise<{ status: number; body: string }> {
  const r = await fetch(`${b.base}/agent-transcript?session=${encodeURIComponent(ref)}`, { headers: { ...WS_HANDSHAKE, authorization: `Bearer ${ADMIN}` } })
  return { status: r.status, body: await r.text() }
}
const codexIds = async (): Promise<string[]> =>
  ((await b.json('/sessions?kind=codex&limit=100')) as { sessions: { session_id: string }[] }).sessions.map((s) => s.session_id)
const search = async (q: string) =>
  (await b.json(`/search?q=${encodeURIComponent(q)}&kind=codex`)) as {
    results: { session_id: string; seq: number; snippet: string }[]
    indexed: { files: number; of: number }
  }
const indexedAll = () =>
  waitFor(async () => {
    const a = await search('zzzzzz')
    return a.indexed.files === a.indexed.of
  }, 15_000)
/** a word of a session's title (its first prompt): what a search for it finds */
async function titleWord(id: string): Promise<string> {
  const { sessions } = (await b.json('/sessions?kind=codex&limit=100')) as { sessions: { session_id: string; title: string }[] }
  const title = sessions.find((s) => s.session_id === id)!.title
  return title.split(/\s+/).find((w) => /^[A-Za-z]{5,}$/.test(w))!
}
const unpackedBytes = () => readdirSync(unpackDir).reduce((n, f) => n + statSync(join(unpackDir, f)).size, 0)

/** ids: the resumed thread (compressed in place later), the plan session (moved to archived_sessions/ compressed), the patch one (archived plain) */
const ids = { resumed: '', plan: '', patch: '', broken: '', bomb: '' }
/** each one's entries while it was a plain file under sessions/ */
const plainEntries = new Map<string, any[]>()

beforeAll(async () => {
  h = historyHome()
  unpackDir = join(tempDir('gothalo-unpacked-'), 'unpacked-sessions')
  const plan = corpusRollout('codex-plan')
  const patch = corpusRollout('codex-patch')
  ids.resumed = h.ids.codex[0]!
  ids.plan = plan.id
  ids.patch = patch.id
  writeFileSync(join(dayDir(), plan.name), plan.text)
  writeFileSync(join(dayDir(), patch.name), patch.text)
  b = await historyBridge(h, { timing: FAST, deps: { unpacked: { dir: unpackDir, maxBytes: CACHE_MAX, maxUnpackedBytes: UNPACKED_MAX } } }, 100)
  for (const id of [ids.resumed, ids.plan, ids.patch]) plainEntries.set(id, await entriesOf(id))
  // a word of the resumed thread's first prompt, found while it is plain
  const word = await titleWord(ids.resumed)
  expect((await search(word)).results.some((r) => r.session_id === ids.resumed)).toBe(true)
})
afterAll(() => b?.stop())

describe('codex sessions compressed or archived', () => {
  test('a compressed rollout beside its plain file: the plain one is the session', async () => {
    const plain = h.files.codex[0]!
    // the .zst of its first lines (codex compresses a whole file; this one differs, so which is read shows)
    const head = readFileSync(plain, 'utf8').split('\n').slice(0, 6).join('\n') + '\n'
    writeFileSync(`${plain}.zst`, zstdCompressSync(Buffer.from(head)))
    expect((await codexIds()).filter((id) => id === ids.resumed)).toEqual([ids.resumed])
    expect(await entriesOf(ids.resumed)).toEqual(plainEntries.get(ids.resumed)!)
  })

  let readBackBefore = 0
  test('compressed in place, archived plain and archived compressed: History lists them and the socket gives the plain entries', async () => {
    readBackBefore = b.app.decorator.counters.search!.readBack
    const plain = h.files.codex[0]!
    // codex's compression of an indexed session: the .zst replaces the plain file
    writeFileSync(`${plain}.zst`, zstdCompressSync(readFileSync(plain)))
    rmSync(plain)
    mkdirSync(archived(), { recursive: true })
    const planFile = readdirSync(dayDir()).find((n) => n.includes(ids.plan))!
    writeFileSync(join(archived(), `${planFile}.zst`), zstdCompressSync(readFileSync(join(dayDir(), planFile))))
    rmSync(join(dayDir(), planFile))
    const patchFile = readdirSync(dayDir()).find((n) => n.includes(ids.patch))!
    renameSync(join(dayDir(), patchFile), join(archived(), patchFile))
    const listed = await codexIds()
    for (const id of [ids.resumed, ids.plan, ids.patch]) expect([id, listed.includes(id)]).toEqual([id, true])
    expect(new Set(listed).size).toBe(listed.length)
    for (const id of [ids.resumed, ids.plan, ids.patch]) {
      const entries = await entriesOf(id)
      expect(entries.length).toBeGreaterThan(2)
      expect([id, entries]).toEqual([id, plainEntries.get(id)!])
    }
    // the copies: private to the bridge
    expect(statSync(unpackDir).mode & 0o777).toBe(0o700)
    for (const f of readdirSync(unpackDir)) expect(statSync(join(unpackDir, f)).mode & 0o777).toBe(0o600)
  })

  test('search finds their words (the compressed session it had indexed plain too), and a hit opens at its entry', async () => {
    await indexedAll()
    // their entries came from the pass that read each copy, told the session's own path (a session a socket opened
    // first included: the finder answers for its .zst path), none read back by seq afterwards
    expect(b.app.decorator.counters.search!.readBack).toBe(readBackBefore)
    for (const id of [ids.resumed, ids.plan, ids.patch]) {
      const word = await titleWord(id)
      const hit = await waitFor(async () => (await search(word)).results.find((r) => r.session_id === id), 5000, `${id} found by ${word}`)
      expect(hit.snippet.toLowerCase()).toContain(word.toLowerCase())
      const q = new FrameQueue(sessionUrl(`codex:${id}`, `&around=${hit.seq}`))
      await q.opened
      const o = await readOpening(q)
      q.close()
      expect(o.entries[0].seq).toBe(hit.seq)
      expect(JSON.stringify(o.entries[0]).toLowerCase()).toContain(word.toLowerCase())
    }
    // a snippet of a compressed session is never read at its copy's offsets from the compressed file
    expect(b.logs.filter((l) => l.includes('.zst')).filter((l) => !l.includes('cut short') && !l.includes('refused'))).toEqual([])
  })

  test('the unpacked copies stay within their bound (least recently used go); one evicted is made again when opened', async () => {
    await waitFor(() => unpackedBytes() <= CACHE_MAX, 5000, `copies within ${CACHE_MAX} bytes (${unpackedBytes()})`)
    // the plan session alone is most of the bound: opening each in turn evicts the other
    for (const id of [ids.plan, ids.resumed, ids.plan]) {
      expect([id, await entriesOf(id)]).toEqual([id, plainEntries.get(id)!])
      await waitFor(() => unpackedBytes() <= CACHE_MAX, 5000, `copies within ${CACHE_MAX} bytes (${unpackedBytes()})`)
    }
  })

  test('a restart on the same data dir serves a compressed session from the copy it left (not decompressed again)', async () => {
    // the plan session was opened last: its copy is there
    const before = readdirSync(unpackDir).sort()
    expect(before.length).toBeGreaterThan(0)
    const again = await startBridge({
      homes: h.homes,
      timing: FAST,
      deps: { projectRoots: [h.home], unpacked: { dir: unpackDir, maxBytes: CACHE_MAX, maxUnpackedBytes: UNPACKED_MAX } },
    })
    try {
      const q = new FrameQueue(`${again.wsBase}/agent-transcript?session=${encodeURIComponent(`codex:${ids.plan}`)}&token=${ADMIN}`)
      await q.opened
      const o = await readOpening(q)
      q.close()
      expect(o.entries).toEqual(plainEntries.get(ids.plan)!.slice(-o.entries.length))
      // the copy it opened is one that was there: no other made, none half made
      expect(readdirSync(unpackDir).sort()).toEqual(before)
    } finally {
      await again.stop()
    }
  })

  test('a corrupt compressed rollout: listed from its head, a clear 500 when opened, skipped by the index; the others still work', async () => {
    // a real rollout of more than one zstd block (codex-queue), cut inside its last
    const queue = corpusRollout('codex-queue')
    ids.broken = queue.id
    const z = zstdCompressSync(Buffer.from(queue.text))
    writeFileSync(join(dayDir(), `${queue.name}.zst`), z.subarray(0, z.length - 200))
    // and one that is no zstd at all: not listed, nothing else breaks
    writeFileSync(join(dayDir(), 'rollout-2026-12-02T16-09-00-01a23790-0000-7000-8000-000000000000.jsonl.zst'), 'not zstd at all\n')
    await waitFor(async () => (await codexIds()).includes(ids.broken), 5000, 'the cut one listed')
    expect(await codexIds()).not.toContain('01a23790-0000-7000-8000-000000000000')
    expect(await upgrade(`codex:${ids.broken}`)).toEqual({ status: 500, body: 'read transcript failed: compressed session file is cut short' })
    await waitFor(() => b.logs.some((l) => l.includes('search index') && l.includes(queue.name) && l.includes('cut short')), 5000, 'the index logs it')
    await indexedAll()
    const logged = b.logs.filter((l) => l.includes('search index') && l.includes(queue.name)).length
    const passes = b.app.decorator.counters.search!.passes
    await waitFor(() => b.app.decorator.counters.search!.passes >= passes + 3, 5000, 'three more passes')
    // skipped until it changes, not tried again every pass
    expect(b.logs.filter((l) => l.includes('search index') && l.includes(queue.name)).length).toBe(logged)
    expect(await entriesOf(ids.plan)).toEqual(plainEntries.get(ids.plan)!)
    expect((await search(await titleWord(ids.patch))).results.some((r) => r.session_id === ids.patch)).toBe(true)
  })

  test('hostile: a zstd bomb (a rollout then 200 MB of zeros) is refused past the cap, without filling memory or disk', async () => {
    const approval = corpusRollout('codex-approval')
    ids.bomb = approval.id
    const file = join(dayDir(), `${approval.name}.zst`)
    // compressed as it streams: the test holds no 200 MB either
    const z = createZstdCompress()
    const parts: Buffer[] = []
    z.on('data', (c: Buffer) => parts.push(c))
    const ended = new Promise((r) => z.on('end', r))
    z.write(Buffer.from(approval.text))
    const zeros = Buffer.alloc(1024 * 1024)
    for (let i = 0; i < 200; i++) z.write(zeros)
    z.end()
    await ended
    writeFileSync(file, Buffer.concat(parts))
    expect(statSync(file).size).toBeLessThan(200_000)
    await waitFor(async () => (await codexIds()).includes(ids.bomb), 5000, 'the bomb listed from its head')
    const rss = process.memoryUsage().rss
    expect(await upgrade(`codex:${ids.bomb}`)).toEqual({
      status: 500,
      body: `read transcript failed: compressed session unpacks to more than ${UNPACKED_MAX} bytes: refused`,
    })
    expect(process.memoryUsage().rss - rss).toBeLessThan(100 * 1024 * 1024)
    // nothing of it left on disk, and the index skips it too
    await waitFor(() => b.logs.some((l) => l.includes('search index') && l.includes(approval.name) && l.includes('refused')), 10_000, 'the index logs it')
    await indexedAll()
    expect(readdirSync(unpackDir).filter((f) => f.endsWith('.tmp'))).toEqual([])
    expect(unpackedBytes()).toBeLessThanOrEqual(CACHE_MAX)
    expect(existsSync(file)).toBe(true)
    expect(await entriesOf(ids.resumed)).toEqual(plainEntries.get(ids.resumed)!)
  })
})
