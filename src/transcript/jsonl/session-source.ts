// The transcript source of a kind whose conversation is one JSONL file per
// session and that has no subagents (pi, codex): the kind says how it finds a
// pane's session file and how its usage is folded; opening the file, serving
// it and its usage, and following it are the same for both. Claude's source is
// its own (subagents and their roster).
import type { AgentInfo } from '../../herdr/types'
import { NO_TRANSCRIPT, type Resolved, type TranscriptSource, type Unresolved } from '../source'
import type { IndexStore } from './index-store'
import type { LineCounter, LineFold, LineNormalizer } from './normalizer'
import type { UsageTally } from '../../usage/tally'
import { JsonlFiles, type JsonlTimeline } from './timeline'
import { isCompressed, UnpackedSessions, type UnpackedCopy } from './zst'
import { jsonlWarmUp } from './warm-up'

export interface SessionSourceOptions {
  /** tail poll (contract: 250 ms) */
  pollMs?: number
  log?: (m: string) => void
  /** the on-disk index cache (data dir): a restart does not read a session file again */
  indexStore?: IndexStore
  /** the JSONL files registry (default: one of its own) */
  jsonl?: JsonlFiles
  /** the plain copies of compressed session files (codex's .jsonl.zst; default: a temporary directory of their own) */
  unpacked?: UnpackedSessions
}

/** Where a pane's session is: its file and its id. */
export interface SessionFile {
  path: string
  sessionId: string
  /** the file does not exist yet: served as an empty timeline that streams once it appears */
  pending?: boolean
}

export interface SessionFileKind {
  kind: string
  /** one line → entries; the index only counts them (`count`), pages and the tail normalize */
  normalize: LineNormalizer
  count: LineCounter
  /**
   * the index pass's usage fold (GET /usage, context_pct): from the same parse as the count;
   * or a fold that gathers more than usage (codex: the calls aborted so far, which its
   * entries need) with where the tally lies in its facts
   */
  usage: LineFold<UsageTally> | { fold: LineFold; usageOf(facts: unknown): UsageTally | undefined }
  /** the kind's sample lines for the warm-up (TranscriptSource.warmUp) */
  warmUpLines: readonly string[]
  /** the agent's home: a file is read only through a real path inside it (one symlinked out of it is refused) */
  within: string
  /** Finds the pane's session file without opening it (resolve and currentSession share this). */
  locate(agent: AgentInfo): Promise<SessionFile | undefined>
}

/** a compressed session's copy does not change: its tail looks rarely */
const STATIC_POLL_MS = 60_000

let fallbackUnpacked: UnpackedSessions | undefined
/** for a source built without a place for copies (tests of one kind): a temporary directory, made on first use */
const ownUnpacked = () => (fallbackUnpacked ??= new UnpackedSessions())

export function sessionFileSource(k: SessionFileKind, opts: SessionSourceOptions = {}): TranscriptSource {
  const log = opts.log ?? ((m: string) => console.warn(m))
  const jsonl = opts.jsonl ?? new JsonlFiles()
  const { fold, usageOf } = 'usageOf' in k.usage ? k.usage : { fold: k.usage, usageOf: (facts: unknown) => facts as UsageTally | undefined }
  return {
    kinds: [k.kind],
    warmUp: jsonlWarmUp(k.warmUpLines, { normalize: k.normalize, count: k.count, fold }),
    async resolve(agent, o): Promise<Resolved | Unresolved> {
      // no subagents: ?subagent= is "no transcript"
      if (o.subagent !== undefined) return NO_TRANSCRIPT
      const at = await k.locate(agent)
      if (!at) return NO_TRANSCRIPT
      let timeline: JsonlTimeline
      let copy: UnpackedCopy | undefined
      try {
        if (isCompressed(at.path)) {
          // A compressed session is static: its plain copy (made once) is read by the same engine, without a tail
          // to speak of; the search index's tap is told the session's own path, the one the listing gives.
          copy = await (opts.unpacked ?? ownUnpacked()).acquire(at.path, k.within)
          timeline = await jsonl.acquire(copy.path, k.normalize, {
            count: k.count,
            fold,
            pollMs: STATIC_POLL_MS,
            watch: false,
            log,
            within: copy.dir,
            store: opts.indexStore,
            tapPath: at.path,
          })
        } else
          timeline = await jsonl.acquire(at.path, k.normalize, {
            count: k.count,
            fold,
            allowMissing: at.pending,
            pollMs: opts.pollMs,
            log,
            within: k.within,
            store: opts.indexStore,
          })
      } catch (e) {
        copy?.release()
        // Gone between locating and opening (deleted, or a race with a rewrite): nothing to serve.
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return NO_TRANSCRIPT
        throw e
      }
      const served = timeline.path
      const usage = async () => {
        const view = await jsonl.heldFacts(served, k.normalize)
        return view && usageOf(view.facts)
      }
      if (copy) {
        const release = timeline.release
        const pinned = copy
        timeline = {
          ...timeline,
          release: () => {
            release()
            pinned.release()
          },
        }
      }
      return { ok: true, sessionId: at.sessionId, timeline, usage }
    },
    async currentSession(agent) {
      return (await k.locate(agent))?.sessionId
    },
  }
}
