// What every route plugin receives: the app's parts, built once by createApp.
// A module of its own so routes/* depend on it and not on app.ts, which mounts them.
import type { PrivatePlaces } from '../changes/private'
import type { Answering } from '../answer/answering'
import type { AuthStore } from '../auth/types'
import type { Counters } from './counters'
import type { EventHub } from '../events/hub'
import type { HerdrClient } from '../herdr/client'
import type { HerdrWatch } from '../herdr/watch'
import type { Logger } from './log'
import type { PushStore } from '../push/store'
import type { Presence } from '../push/presence'
import type { Auditor } from '../audit/auditor'
import type { AttachmentStore } from '../attachments/store'
import type { Roots } from '../projects/roots'
import type { SearchIndex } from '../search/search-index'
import type { AgentKind, SessionFinder } from '../projects/listing'
import type { LaterPrompts } from '../projects/start'
import type { StartedPanes } from '../projects/started'
import type { SocketRegistry } from '../routes/sockets'
import type { PaneWatches } from '../transcript/pane-watch'
import type { AgentHomes } from '../transcript/source'
import type { SourceRegistry } from '../transcript/sources'
import type { Machines } from '../machines/registry'

export interface Timing {
  /** transcript tail poll (contract: 250 ms) */
  tailPollMs: number
  /** pane session poll for rotation (contract: 2 s) */
  sessionPollMs: number
  /** subagent roster re-scan (contract: 3 s) */
  rosterPollMs: number
  /** /attach screen poll */
  attachPollMs: number
  /**
   * A transcript socket whose queue has not moved for this long (its client is
   * there but not reading) is taken for dead and released. A client that left
   * is released at once (docs/bridge.md, "A socket lives no longer than its client").
   */
  stalledSocketMs: number
  /** the most time one HTTP request may take, whatever herdr does (its herdr calls are stopped then) */
  requestDeadlineMs: number
  /** the herdr watcher's CLI poll when herdr's socket is unreachable (spec: 1 s) */
  herdrPollMs: number
  /**
   * The herdr watcher keeps running this long after its last user left: a
   * phone reconnecting (or a socket following another) finds herdr's state
   * already read, with no herdr call of its own.
   */
  herdrLingerMs: number
  /** WS /events ping (spec: 30 s) */
  eventsPingMs: number
}

export const DEFAULT_TIMING: Timing = {
  tailPollMs: 250,
  sessionPollMs: 2000,
  rosterPollMs: 3000,
  attachPollMs: 100,
  stalledSocketMs: 60_000,
  requestDeadlineMs: 15_000,
  herdrPollMs: 1000,
  herdrLingerMs: 30_000,
  eventsPingMs: 30_000,
}

/** The push routes' part: absent when the bridge has no VAPID keys (/push/* answer 503). */
export interface PushRoutesDeps {
  store: PushStore
  publicKey: string
  /** call after a subscription was added or deleted */
  changed: () => void
}

/** The deps with defaults filled in, and the parts the routes share. */
export interface Ctx {
  herdr: HerdrClient
  auth: AuthStore
  homes: AgentHomes
  version: string
  clock: () => number
  timing: Timing
  log: (msg: string) => void
  logger: Logger
  /** open sockets by device, closed when the device is revoked */
  sockets: SocketRegistry
  /** the one herdr watcher: /snapshot's cache, rotation checks, /events */
  watch: HerdrWatch
  /** transcript sources by agent kind (WS /agent-transcript, /snapshot's subagent counts) */
  sources: SourceRegistry
  /** rotation checks, one per watched pane */
  panes: PaneWatches
  /** WS /events: every pane's state, diffed */
  events: EventHub
  /** which devices have the app on screen, as their /events sockets report it (push stays quiet for them) */
  presence: Presence
  /** the answering policy behind /approve, /answer and /send's digit shortcut (its duplicate guard is per app) */
  answering: Answering
  push?: PushRoutesDeps
  /** starting agents: the project roots, the session finder, first prompts waiting for a blocked start */
  projects: {
    roots: Roots
    finder: SessionFinder
    later: LaterPrompts
    installed: (kind: AgentKind) => boolean
    /** the PATH `installed` searches */
    searchPath: string
    /** the panes made for POST /agent-start */
    started: StartedPanes
  }
  /** what GET /files, /changes and /changes/diff never serve: the bridge's own directories, the agents' credentials */
  privatePlaces: PrivatePlaces
  /** uploaded attachments (absent: not configured) */
  attachments?: AttachmentStore
  /** the other machines this bridge merges (absent: none configured, a single machine) */
  machines?: Machines
  /** the audit log's writer: one row per write, at the route edge */
  audit: Auditor
  /** what the app counts (tests and benches read it as app.decorator.counters) */
  counters: Counters
  /** the search index over every past conversation (absent: not enabled) */
  search?: SearchIndex
}
