// The search index over every past conversation (docs/bridge.md, "Every past
// conversation"). Sessions generated from the corpus (bench/gen-transcript.ts:
// the real sessions of fixtures/claude/cc-2139-real replayed, fresh ids), SEARCH_BENCH_MB of them
// (default 256: 1 GB takes this shared machine minutes to write and index; set
// SEARCH_BENCH_MB=1024 for the full figure). Against a floor taken in the same
// run: reading and normalizing the same files with no index (bench/floor.ts with
// the Claude normalizer).
//   initial indexing   session MB / wall seconds from the first pass to every
//                      session indexed                          target ≥ 50 MB/s
//   index size         search.db (+ its WAL) / the session bytes   target < 25 %
//   query p50          GET /search's work (SearchIndex.search), a set of
//                      words, phrases and substrings, 20 rounds   target < 50 ms
//   first page while   a transcript's first page (resolve + the newest 150) on an
//   indexing           indexed session while the index is built
//                      (the warm-reconnect target)               target < 50 ms p50
//   event loop held    the longest a 1 ms timer waited while the queries ran,
//   by queries         and while a query for the commonest word (`the`) ran alone:
//                      every phone's socket waits that long      target < 50 ms
//   bun bench/search.ts
import { mkdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionFinder } from '../src/projects/listing'
import { rootsOf } from '../src/projects/roots'
import { SearchIndex } from '../src/search/search-index'
import { SearchStore } from '../src/search/store'
import { parseQuery } from '../src/search/text'
import { JsonlFiles } from '../src/transcript/jsonl/timeline'
import { normalizeClaudeLine } from '../src/transcript/kinds/claude/normalize'
import { createSources } from '../src/transcript/sources'
import { floor, median } from './floor'
import { generateTranscript } from './gen-transcript'
import { ms, resolveAndPage, sessionAgent } from './session-file'
import { check, finish, info, loadNote } from './verdict'

// real Claude Code sessions (three of a project's worktrees), replayed
const CORPUS = join(import.meta.dir, '..', 'fixtures', 'claude', 'cc-2139-real')
const TOTAL_MB = Number(process.env.SEARCH_BENCH_MB ?? 256)
const PER_FILE_MB = 16
const CWD = '/home/me/cc-long/proj'
const root = join(tmpdir(), `gothalo-bench-search-${process.pid}`)
const claudeDir = join(root, 'claude')
const project = join(claudeDir, 'projects', CWD.replace(/[^A-Za-z0-9]/g, '-'))
mkdirSync(project, { recursive: true })
const homes = { home: root, claudeDir, piDir: join(root, 'pi'), xdgStateHome: join(root, 's'), xdgDataHome: join(root, 'd'), codexDir: join(root, 'codex') }

/** Measures the longest wait of a 1 ms timer until stop(): how long the event loop was held at once. */
function heldWhile(): { stop(): number } {
  let worst = 0
  let last = performance.now()
  const timer = setInterval(() => {
    const now = performance.now()
    worst = Math.max(worst, now - last - 1)
    last = now
  }, 1)
  return {
    stop() {
      clearInterval(timer)
      return Math.max(worst, performance.now() - last - 1)
    },
  }
}

try {
  const files: string[] = []
  let bytes = 0
  for (let i = 0; bytes < TOTAL_MB * 1024 * 1024; i++) {
    const id = `${String(i).padStart(8, '0')}-2222-4333-8444-555555555555`
    const path = join(project, `${id}.jsonl`)
    bytes += generateTranscript(Math.min(PER_FILE_MB, TOTAL_MB - bytes / 1048576), path, CORPUS).bytes
    files.push(path)
  }
  const mb = bytes / 1048576
  console.log(`search: ${files.length} Claude sessions, ${mb.toFixed(0)} MB; ${loadNote()}`)

  // the floor: every file read and every line normalized, no index
  const f0 = performance.now()
  for (const f of files) await floor(f, normalizeClaudeLine)
  const floorMBs = mb / (ms(f0) / 1000)

  const jsonl = new JsonlFiles()
  const sources = createSources(homes, { jsonl, log: () => {} })
  const dbPath = join(root, 'search.db')
  const index = new SearchIndex({
    store: new SearchStore(dbPath, console.log),
    finder: new SessionFinder(homes),
    roots: rootsOf(['/']),
    sources,
    jsonl,
    log: console.log,
    pollMs: 50,
    // SEARCH_BENCH_IN_THREAD=1: the writes on the main thread, as before the writer thread (a comparison)
    inThreadWrites: process.env.SEARCH_BENCH_IN_THREAD === '1',
    // SEARCH_BENCH_IN_THREAD_QUERIES=1: the queries on the main thread, as before the reader thread (a comparison)
    inThreadQueries: process.env.SEARCH_BENCH_IN_THREAD_QUERIES === '1',
  })
  // a phone reads a session already indexed while the rest is built
  const reader = sessionAgent('claude', CWD, { kind: 'id', value: files[0]!.split('/').pop()!.slice(0, -6) })
  const idle: number[] = []
  for (let i = 0; i < 10; i++) {
    const w = await resolveAndPage(sources.forKind('claude')!, reader)
    idle.push(w.ms)
    w.r.timeline.release()
  }
  const i0 = performance.now()
  index.start()
  const during: number[] = []
  for (;;) {
    const p = index.progress()
    if (p.of === files.length && p.files === p.of) break
    const w = await resolveAndPage(sources.forKind('claude')!, reader)
    during.push(w.ms)
    w.r.timeline.release()
    await new Promise((r) => setTimeout(r, 100))
  }
  // the writer thread has written and committed everything taken
  await index.settled()
  const indexSec = ms(i0) / 1000
  const indexMBs = mb / indexSec
  check(
    'initial indexing',
    indexMBs >= 50,
    `${indexMBs.toFixed(1)} MB/s (${indexSec.toFixed(1)} s for ${mb.toFixed(0)} MB; the floor, reading and normalizing with no index: ${floorMBs.toFixed(1)} MB/s, so ${(floorMBs / indexMBs).toFixed(2)}× the floor's time)`,
    '≥ 50 MB/s',
  )
  info('what the index pass did', JSON.stringify(index.counters))
  info('FTS5 writes', index.writesOffThread ? 'on a writer thread (a Worker)' : 'on the main thread')

  // the segments written in small transactions are merged once nothing waits: weigh the file after that
  const c0 = performance.now()
  while (index.compacting) await new Promise((r) => setTimeout(r, 50))
  info('merging the segments afterwards', `${(ms(c0) / 1000).toFixed(1)} s, a slice a turn`)
  index.store.db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
  const dbBytes = [dbPath, `${dbPath}-wal`].reduce((n, p) => {
    try {
      return n + statSync(p).size
    } catch {
      return n
    }
  }, 0)
  check('index size', dbBytes / bytes < 0.25, `${(dbBytes / 1048576).toFixed(1)} MB = ${((100 * dbBytes) / bytes).toFixed(1)} % of the sessions`, '< 25 %')

  const queries = ['spotter', 'Phoenix', '"did you push"', 'mix.exs', 'defmodule', 'bd ready', 'continued from a previous', 'Elixir', 'xyzzy-nowhere']
  const times: number[] = []
  const perQuery: string[] = []
  for (const q of queries) await index.search(parseQuery(q)!, { limit: 20 }, [])
  // how long the event loop is held while queries run (every other route, socket and timer waits that long)
  const held = heldWhile()
  for (const q of queries) {
    const xs: number[] = []
    let n = 0
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now()
      n = (await index.search(parseQuery(q)!, { limit: 20 }, [])).length
      xs.push(ms(t0))
    }
    times.push(...xs)
    perQuery.push(`${q} ${median(xs).toFixed(1)} ms (${n} hits)`)
  }
  check(
    `query p50 over ${mb.toFixed(0)} MB`,
    median(times) < 50,
    `${median(times).toFixed(1)} ms, p95 ${[...times].sort((a, b) => a - b)[Math.floor(times.length * 0.95)]!.toFixed(1)} ms`,
    '< 50 ms',
  )
  info('per query (p50)', perQuery.join('; '))
  const heldByQueries = held.stop()
  // a query for the commonest word: FTS5 matches nearly every entry and ranks them all
  const heavy = parseQuery('the')!
  await index.search(heavy, { limit: 20 }, [])
  const heavyHeld = heldWhile()
  const h0 = performance.now()
  await index.search(heavy, { limit: 20 }, [])
  const heavyMs = ms(h0)
  const heldByHeavy = heavyHeld.stop()
  check(
    'event loop held by queries',
    Math.max(heldByQueries, heldByHeavy) < 50,
    `at most ${heldByQueries.toFixed(1)} ms over the queries above; ${heldByHeavy.toFixed(1)} ms during a ${heavyMs.toFixed(0)} ms query for \`the\` (FTS5 queries ${index.queriesOffThread ? 'on a reader thread (a Worker)' : 'on the main thread'})`,
    '< 50 ms',
  )
  check(
    'a first page while indexing runs',
    during.length === 0 || median(during) < 50,
    during.length ? `p50 ${median(during).toFixed(1)} ms over ${during.length} (idle: ${median(idle).toFixed(1)} ms)` : 'indexing ended before one was read',
    '< 50 ms',
  )
  await index.close()
} finally {
  rmSync(root, { recursive: true, force: true })
}
finish('search')
