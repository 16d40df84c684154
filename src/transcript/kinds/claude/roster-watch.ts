// The live subagent roster of one Claude Code session: folds the parent
// transcript incrementally (byte offset, appended bytes only, complete lines
// only), lists <session>/subagents/, stats each agent file and re-reads a
// meta.json only when it changed. Passive: it does work only when roster() is
// called (every 3 s per socket, once per /snapshot row), holds no descriptor or
// timer between calls, and concurrent calls share one refresh.
//
// The decisions (done, labels, ordering) are roster-logic.ts's; this file only
// gathers the facts.
import { open, readFile, readdir, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { isMissing } from '../../jsonl/files'
import { openInside, type FactsView } from '../../jsonl/jsonl-file'
import type { Subagent } from '../../roster'
import { ParentFacts, RESULT_MARKER, ROSTER_LINE_MARKERS, buildRoster, type SubagentFileFacts } from './roster-logic'

// Declared as the JSONL files' counters are (jsonl-file.ts), a factory of named zeros and its type:
// the two share that form only; each counts its own part's work.
/** What a roster registry's watchers did (its own: each app has its own), for tests and measurements. */
export type RosterCounters = ReturnType<typeof newRosterCounters>

export const newRosterCounters = () => ({
  /** bytes read from parent transcripts to fold them */
  parentBytesRead: 0,
  /** folds that started over at byte 0 (first fold, shrink, replacement) */
  parentRescans: 0,
  /** subagents/ directory listings */
  listings: 0,
  /** meta.json files read and parsed */
  metaReads: 0,
  /** refreshes run (concurrent roster() calls share one) */
  refreshes: 0,
})

/** `<dir>/<session>/subagents` beside `<dir>/<session>.jsonl`. */
export function subagentsDirOf(sessionPath: string): string {
  return join(dirname(sessionPath), basename(sessionPath, '.jsonl'), 'subagents')
}

const JSONL_NAME = /^agent-(.+)\.jsonl$/
const META_NAME = /^agent-(.+)\.meta\.json$/

/**
 * agent id → the file name of its transcript, for every agent-<id>.jsonl in the
 * subagents dir. The ids come from the directory itself, so a path built from one
 * is a path that was listed. Empty when the dir does not exist; throws on other
 * read failures.
 */
export async function discoverSubagentFiles(subDir: string): Promise<Map<string, string>> {
  let names: string[]
  try {
    names = await readdir(subDir)
  } catch (err) {
    if (isMissing(err)) return new Map()
    throw err
  }
  const found = new Map<string, string>()
  for (const name of names.sort()) {
    const m = JSONL_NAME.exec(name)
    if (m) found.set(m[1]!, name)
  }
  return found
}

export interface FoldLimits {
  /** bytes read per step while folding the parent (default 1 MiB) */
  chunkBytes: number
  /** a parent line longer than this is not folded (default 32 MiB: no roster fact is that big; images are) */
  maxLineBytes: number
  /**
   * A roster refreshed less than this long ago is answered as is (default 0).
   * Every socket on a session polls the roster; this makes them share the work.
   */
  freshMs: number
}
const DEFAULT_LIMITS: FoldLimits = { chunkBytes: 1024 * 1024, maxLineBytes: 32 * 1024 * 1024, freshMs: 0 }

/**
 * Where a watcher can find parent facts the JSONL index pass already folded
 * (the session file is open in a timeline): undefined when nothing holds it.
 */
export type IndexedFacts = (sessionPath: string) => Promise<FactsView | undefined>

interface MetaCache {
  mtimeMs: number
  size: number
  meta: unknown
  readable: boolean
}

export class RosterWatcher {
  readonly subDir: string
  refs = 0
  private facts = new ParentFacts()
  /** bytes of the parent folded so far: always just past a newline (or 0) */
  private offset = 0
  private ino = -1
  private dev = -1
  private readonly metas = new Map<string, MetaCache>()
  private lastGood: Subagent[] | undefined = undefined
  private lastError = ''
  private inflight: Promise<Subagent[] | undefined> | null = null
  /** when the last refresh finished (performance.now()), -Infinity before any */
  private refreshedAt = -Infinity
  /** the index pass's facts last adopted: generation and reach */
  private adopted: { generation: number; scanned: number } | undefined

  private readonly limits: FoldLimits

  constructor(
    readonly sessionPath: string,
    private readonly log: (message: string) => void,
    limits: Partial<FoldLimits> = {},
    private readonly indexed?: IndexedFacts,
    /** the agent's own directory: the parent and meta files are read only through real paths inside it */
    private readonly within?: string,
    private readonly counters: RosterCounters = newRosterCounters(),
  ) {
    this.subDir = subagentsDirOf(sessionPath)
    this.limits = { ...DEFAULT_LIMITS, ...limits }
  }

  /** The session's roster now; the last good one when discovery fails. Never rejects. */
  roster(): Promise<Subagent[] | undefined> {
    if (this.inflight) return this.inflight
    if (performance.now() - this.refreshedAt < this.limits.freshMs) return Promise.resolve(this.lastGood)
    this.inflight = this.refresh().finally(() => {
      this.inflight = null
      this.refreshedAt = performance.now()
    })
    return this.inflight
  }

  /** {running, total} of the current roster; undefined when nothing was delegated. */
  async counts(): Promise<{ running: number; total: number } | undefined> {
    const rows = await this.roster()
    if (!rows) return undefined
    return { running: rows.filter((r) => !r.done).length, total: rows.length }
  }

  private async refresh(): Promise<Subagent[] | undefined> {
    this.counters.refreshes++
    try {
      if (!(await this.adoptIndexed())) await this.foldParent()
      const files = await this.scanDir()
      this.lastGood = buildRoster(files, this.facts)
      this.lastError = ''
    } catch (err) {
      const msg = `subagent roster for ${this.sessionPath}: ${(err as Error)?.message ?? String(err)}`
      if (msg !== this.lastError) this.log(msg) // once per distinct failure, not every 3 s
      this.lastError = msg
    }
    return this.lastGood
  }

  /**
   * Takes the parent facts from the index pass when a timeline holds the
   * session file: no read of the parent at all. A copy, with the offset and
   * file it covers, so a later fold of our own (the timeline gone) continues
   * from there instead of from byte 0. False when nothing holds the file.
   */
  private async adoptIndexed(): Promise<boolean> {
    const view = await this.indexed?.(this.sessionPath)
    if (!view || !(view.facts instanceof ParentFacts)) return false
    const a = this.adopted
    if (a && a.generation === view.generation && a.scanned === view.scanned && this.ino === view.ino && this.dev === view.dev) return true
    const copy = ParentFacts.fromJSON(view.facts.toJSON())
    if (!copy) return false
    this.facts = copy
    this.offset = view.scanned
    this.ino = view.ino
    this.dev = view.dev
    this.adopted = { generation: view.generation, scanned: view.scanned }
    return true
  }

  /** Folds the parent's complete lines past the offset; starts over when the file shrank or was replaced. */
  private async foldParent(): Promise<void> {
    const fh = this.within === undefined ? await open(this.sessionPath, 'r') : await openInside(this.sessionPath, this.within)
    try {
      const st = await fh.stat()
      let restart = st.ino !== this.ino || st.dev !== this.dev || st.size < this.offset
      if (!restart && this.offset > 0) {
        // Same inode, not shorter: rewritten in place if the byte before the offset is no longer our newline.
        const b = Buffer.alloc(1)
        const { bytesRead } = await fh.read(b, 0, 1, this.offset - 1)
        restart = bytesRead !== 1 || b[0] !== 0x0a
      }
      this.adopted = undefined
      if (restart) {
        this.facts = new ParentFacts()
        this.offset = 0
        this.ino = st.ino
        this.dev = st.dev
        this.counters.parentRescans++
      }
      let pos = this.offset
      let carry: Buffer[] = []
      let carryLen = 0
      let oversized = false
      while (pos < st.size) {
        const want = Math.min(this.limits.chunkBytes, st.size - pos)
        const buf = Buffer.allocUnsafe(want)
        const { bytesRead } = await fh.read(buf, 0, want, pos)
        if (bytesRead === 0) break
        this.counters.parentBytesRead += bytesRead
        let start = 0
        const sieve = new MarkerSieve(buf)
        for (let nl = buf.indexOf(0x0a, start); nl !== -1 && nl < bytesRead; nl = buf.indexOf(0x0a, start)) {
          if (!oversized) {
            const piece = buf.subarray(start, nl)
            if (carryLen > 0) this.facts.addLine(Buffer.concat([...carry, piece]).toString('utf8'))
            // Only a line holding a marker can change the roster: skip the rest undecoded.
            else if (sieve.any(start, nl, this.facts.spawns.size > 0)) this.facts.addLine(piece.toString('utf8'))
          }
          carry = []
          carryLen = 0
          oversized = false
          start = nl + 1
          this.offset = pos + start
        }
        if (start < bytesRead && !oversized) {
          // part of a line continues in the next chunk (or is still being written)
          carry.push(Buffer.from(buf.subarray(start, bytesRead)))
          carryLen += bytesRead - start
          if (carryLen > this.limits.maxLineBytes) {
            carry = []
            carryLen = 0
            oversized = true
          }
        }
        pos += bytesRead
      }
      // A trailing line without its newline is not folded: the offset stays at its start.
    } finally {
      await fh.close().catch(() => {})
    }
  }

  /** What the subagents dir holds now; meta.json re-read only when its mtime or size changed. */
  private async scanDir(): Promise<SubagentFileFacts[]> {
    let names: string[]
    try {
      names = await readdir(this.subDir)
    } catch (err) {
      if (!isMissing(err)) throw err
      names = []
    }
    this.counters.listings++
    const jsonl = new Set<string>()
    const meta = new Set<string>()
    for (const name of names) {
      let m = JSONL_NAME.exec(name)
      if (m) jsonl.add(m[1]!)
      else if ((m = META_NAME.exec(name))) meta.add(m[1]!)
    }
    const facts: SubagentFileFacts[] = []
    for (const id of [...new Set([...jsonl, ...meta])].sort()) {
      const f: SubagentFileFacts = { agentId: id, metaReadable: false, hasJsonl: false }
      if (jsonl.has(id)) {
        try {
          const st = await stat(join(this.subDir, `agent-${id}.jsonl`))
          if (st.isFile()) {
            f.hasJsonl = true
            f.lastWriteMs = st.mtimeMs
          }
        } catch {
          // vanished since the listing: no row
        }
      }
      if (meta.has(id) && f.hasJsonl) Object.assign(f, await this.metaOf(id))
      facts.push(f)
    }
    for (const id of this.metas.keys()) if (!meta.has(id)) this.metas.delete(id)
    return facts
  }

  private async metaOf(id: string): Promise<{ meta?: unknown; metaReadable: boolean }> {
    const path = join(this.subDir, `agent-${id}.meta.json`)
    let st
    try {
      st = await stat(path)
    } catch {
      this.metas.delete(id)
      return { metaReadable: false }
    }
    const cached = this.metas.get(id)
    if (cached && cached.mtimeMs === st.mtimeMs && cached.size === st.size) {
      return { meta: cached.meta, metaReadable: cached.readable }
    }
    this.counters.metaReads++
    let entry: MetaCache
    try {
      // A meta file is ~120 bytes; a huge one is not meta.
      if (st.size > 64 * 1024) throw new Error('meta too large')
      const text = this.within === undefined ? await readFile(path, 'utf8') : await readInside(path, this.within)
      entry = { mtimeMs: st.mtimeMs, size: st.size, meta: JSON.parse(text), readable: true }
    } catch {
      entry = { mtimeMs: st.mtimeMs, size: st.size, meta: undefined, readable: false }
    }
    this.metas.set(id, entry)
    return { meta: entry.meta, metaReadable: entry.readable }
  }
}

/**
 * One watcher per session file, reference counted. Watchers nobody holds stay
 * (they own no descriptor or timer) so the next acquire, or a /snapshot count,
 * continues from the folded offset; the least recently used beyond `maxIdle`
 * are forgotten.
 */
export class RosterRegistry {
  private readonly watchers = new Map<string, RosterWatcher>()
  private readonly maxIdle: number
  private readonly log: (message: string) => void
  private readonly limits: Partial<FoldLimits>
  private readonly indexed: IndexedFacts | undefined
  private readonly within: string | undefined
  /** what this registry's watchers did (tests and benches read it) */
  readonly counters: RosterCounters

  constructor(
    opts: {
      log?: (message: string) => void
      maxIdle?: number
      limits?: Partial<FoldLimits>
      indexed?: IndexedFacts
      within?: string
      /** where the watchers count (default: counters of this registry's own) */
      counters?: RosterCounters
    } = {},
  ) {
    this.within = opts.within
    this.counters = opts.counters ?? newRosterCounters()
    this.log = opts.log ?? ((m) => console.warn(m))
    this.maxIdle = opts.maxIdle ?? 32
    this.limits = opts.limits ?? {}
    this.indexed = opts.indexed
  }

  /** Joins (or starts) the watcher of `sessionPath` (absolute). release() is idempotent. */
  acquire(sessionPath: string): { watcher: RosterWatcher; release: () => void } {
    let w = this.watchers.get(sessionPath)
    if (w)
      this.watchers.delete(sessionPath) // re-insert: most recently used last
    else w = new RosterWatcher(sessionPath, this.log, this.limits, this.indexed, this.within, this.counters)
    this.watchers.set(sessionPath, w)
    w.refs++
    let released = false
    const watcher = w
    return {
      watcher,
      release: () => {
        if (released) return
        released = true
        watcher.refs--
        if (watcher.refs === 0) this.trim()
      },
    }
  }

  private trim(): void {
    let idle = 0
    for (const w of this.watchers.values()) if (w.refs === 0) idle++
    for (const [path, w] of this.watchers) {
      if (idle <= this.maxIdle) break
      if (w.refs > 0) continue
      this.watchers.delete(path)
      idle--
    }
  }

  /** For tests: how many watchers are held and how many idle. */
  stats(): { held: number; idle: number } {
    let held = 0
    let idle = 0
    for (const w of this.watchers.values())
      if (w.refs > 0) held++
      else idle++
    return { held, idle }
  }
}

/** A small file's text, read only through its real path inside `root`. */
async function readInside(path: string, root: string): Promise<string> {
  const fh = await openInside(path, root)
  try {
    return await fh.readFile('utf8')
  } finally {
    await fh.close().catch(() => {})
  }
}

const MARKERS = ROSTER_LINE_MARKERS.map((m) => Buffer.from(m))
const RESULT = Buffer.from(RESULT_MARKER)

/** Finds roster markers in a chunk with native byte searches, each scanned once forward. */
class MarkerSieve {
  private next = new Map<Buffer, number>()
  constructor(private readonly buf: Buffer) {}
  private has(needle: Buffer, from: number, to: number): boolean {
    let i = this.next.get(needle)
    if (i === undefined || (i !== -1 && i < from)) this.next.set(needle, (i = this.buf.indexOf(needle, from)))
    return i !== -1 && i < to
  }
  /** Whether bytes [from, to) hold a marker (and, when spawns are known, a result). */
  any(from: number, to: number, withResults: boolean): boolean {
    for (const m of MARKERS) if (this.has(m, from, to)) return true
    return withResults && this.has(RESULT, from, to)
  }
}
