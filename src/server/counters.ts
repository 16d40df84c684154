// What one app counts, reachable in one place (app.decorator.counters). Every
// group is created with the app (createApp) and handed to the part that counts,
// or is that part's own; none lives in a module, so two apps in one process
// count apart. Tests and benches read them; nothing the bridge does depends on them.
import type { WatchCounters } from '../herdr/watch'
import type { IndexStoreCounters } from '../transcript/jsonl/index-store'
import type { JsonlCounters } from '../transcript/jsonl/timeline'
import type { RosterCounters } from '../transcript/kinds/claude/roster-watch'
import type { OpencodeCounters } from '../transcript/kinds/opencode/timeline'
import type { StreamCounters } from '../transcript/stream'
import type { SearchCounters } from '../search/search-index'

export interface Counters {
  /** the herdr watcher: herdr calls and events */
  watch: WatchCounters
  /** the JSONL files (the app's JsonlFiles): index builds, scans, tail passes, reads */
  jsonl: JsonlCounters
  /** the on-disk index cache: loads, saves, rejects (all zero without a cache dir) */
  indexCache: IndexStoreCounters
  /** Claude's subagent rosters: parent bytes folded, listings, meta reads */
  roster: RosterCounters
  /** opencode's sessions: loads and polls */
  opencode: OpencodeCounters
  /** the transcript streams: pauses for backpressure */
  stream: StreamCounters
  /** the transcript sockets: the most bytes queued */
  transcript: TranscriptSocketCounters
  /** the attach sockets: the most input queued */
  attach: AttachCounters
  /** Web Push sends (absent without Web Push) */
  push?: PushCounters
  /** the search index: passes, entries written, bytes it took from the passes, entries read back (absent without search) */
  search?: SearchCounters
}

/** What the app's attach sockets did (the app's own), for tests and measurements. */
export interface AttachCounters {
  /** the most input any attach socket had queued */
  maxQueuedInput: number
}

/** What the app's transcript sockets did. */
export interface TranscriptSocketCounters {
  /** the most bytes any transcript socket had queued in the server */
  maxBufferedBytes: number
}

/** What a push sender did (the app's own), for tests. */
export interface PushCounters {
  /** messages the push service accepted */
  sent: number
  /** attempts made again after a failure */
  retried: number
}
