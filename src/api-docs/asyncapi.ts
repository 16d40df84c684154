// The AsyncAPI 3.0 document for the bridge's WebSocket protocols, served at
// /asyncapi.json. Each protocol is one WsChannel entry, its frames the same
// TypeBox schemas the code sends and checks (src/transcript/frames.ts): adding
// a protocol (e.g. /events) is adding an entry to WS_CHANNELS.
import { t, type TSchema } from 'elysia'
import {
  BacklogCompleteFrame,
  EntryFrame,
  HelloFrame,
  LoadNewerFrame,
  LoadOlderFrame,
  NewerPageCompleteFrame,
  PageCompleteFrame,
  SessionChangedFrame,
  SubagentsFrame,
} from '../transcript/frames'
import { cleanSchema } from './openapi'
import { EventsHelloFrame, MachineEventFrame, PaneEventFrame, PaneRemovedFrame, VisibilityFrame } from '../events/frames'
import { AttachResizeFrame } from '../routes/attach'

export interface WsMessage {
  /** a short title (the frame's `type`, or what the bytes are) */
  title: string
  summary: string
  payload: TSchema | Record<string, unknown>
  /** default application/json */
  contentType?: string
}

export interface WsChannel {
  /** the channel's key in the document (camelCase) */
  id: string
  address: string
  title: string
  description: string
  /** the query parameters of the upgrade request */
  query: TSchema
  /** bridge → client frames */
  send: Record<string, WsMessage>
  /** client → bridge frames */
  receive: Record<string, WsMessage>
}

const token = t.String({ description: 'a device token (from POST /pair) or the admin token; an `Authorization: Bearer` header works too' })
const pane = t.String({ minLength: 1, description: 'the herdr pane id, e.g. w1:p2 (from /snapshot)' })
const session = t.String({
  description:
    'instead of `pane`: a past session by its GET /sessions row, `<agent_kind>:<session_id>` (read-only, never rotates; 404 `no such session` when the id is not one listed)',
})
const around = t.String({ description: 'with `session`: the first page starts at this entry seq (a search hit); `hello.has_newer` and `load_newer` page down' })
const machine = t.String({
  description:
    "with `session`: another machine's past session (its label in GET /machines), relayed through this bridge; 404 `no such machine`, 503 `machine LABEL is offline`. A remote pane needs none: `pane=LABEL/PANE`",
})
const subagent = t.String({ description: "a subagent's agent_id from the roster: stream its conversation instead (never rotates)" })
const since = t.String({ description: '`<epoch>:<seq>` of the last event the client holds, to resume' })

const PRE_UPGRADE =
  'Failures before the upgrade are plain-text HTTP statuses (the socket never opens): 400 `want ?pane=<pane_id>`, 401 `unauthorized`, 404, 502 `herdr …: <stderr>`.'

export const WS_CHANNELS: WsChannel[] = [
  {
    id: 'agentTranscript',
    address: '/agent-transcript',
    title: 'WS /agent-transcript — the streamed conversation',
    description: [
      "The agent's whole conversation, normalized into one entry schema for every agent kind, read from its own session files and streamed live (docs/agent-pane-api.md).",
      'On connect: `hello` → `entry`×N (`live:false`, the newest page, oldest first) → `backlog_complete` → `entry` (`live:true`) as the agent works. `load_older` pages up: its `entry` frames (`live:false`) then one `page_complete`. When the pane moves to a new session: `session_changed`, then a fresh `hello` and backlog. `subagents` re-sends the whole roster when it changes.',
      PRE_UPGRADE +
        ' 404 also `no transcript file for pane` / `transcript not supported for this agent kind`; 500 `read transcript failed` (a compressed codex session that cannot be unpacked: `read transcript failed: <why>`).',
      '`?session=<kind>:<id>` (instead of `pane`) opens a past session, a GET /sessions row: the same frames, `hello.session` and `hello.has_newer`, no rotation; `&around=SEQ` starts the first page at that entry, and `load_newer` (the mirror of `load_older`) pages down to the newest entry, after which live entries flow. 400 `want ?session=<kind>:<session_id>`, `around: an entry seq, 1 or more`; 404 `no such session`.',
      'Closes with 1000: the client left, the server shuts down (`server shutting down`), the device was revoked (`device revoked`), or an inbound frame was not a well-formed `load_older` or `load_newer` (`unrecognized control frame`).',
    ].join('\n\n'),
    query: t.Object({
      pane: t.Optional(pane),
      session: t.Optional(session),
      around: t.Optional(around),
      machine: t.Optional(machine),
      token: t.Optional(token),
      subagent: t.Optional(subagent),
    }),
    send: {
      hello: { title: 'hello', summary: 'identity and paging state; first, and again after every session_changed', payload: HelloFrame },
      entry: { title: 'entry', summary: 'one normalized entry; live:false for backlog and older pages, true for the tail', payload: EntryFrame },
      backlogComplete: { title: 'backlog_complete', summary: 'the newest page is complete; live entries follow', payload: BacklogCompleteFrame },
      pageComplete: { title: 'page_complete', summary: 'the end of a load_older reply, with the next cursor', payload: PageCompleteFrame },
      newerPageComplete: {
        title: 'newer_page_complete',
        summary: 'the end of a load_newer reply: the newest entry sent, and whether more follow',
        payload: NewerPageCompleteFrame,
      },
      sessionChanged: {
        title: 'session_changed',
        summary: 'the pane moved to a new session: drop everything held; a fresh hello follows',
        payload: SessionChangedFrame,
      },
      subagents: { title: 'subagents', summary: 'the whole subagent roster, re-sent when it changes', payload: SubagentsFrame },
    },
    receive: {
      loadOlder: { title: 'load_older', summary: 'page up: entries with seq < before_seq (limit: default 150, at most 500)', payload: LoadOlderFrame },
      loadNewer: { title: 'load_newer', summary: 'page down: entries with seq > after_seq (limit: default 150, at most 500)', payload: LoadNewerFrame },
    },
  },
  {
    id: 'events',
    address: '/events',
    title: "WS /events — every pane's state, pushed",
    description: [
      "For the phone's list screen and its notifications; replaces polling /snapshot. One herdr watcher serves every socket (herdr's socket API where reachable, else one CLI poll per second).",
      'On connect: `hello` with the full list (`resume` `new`, or `gap` when `since` is older than the last 256 events), or `resume: ok` without `panes`, followed by the events after `since`. Then `pane` when anything in a row changes (a pane that became blocked carries its parsed `card`) and `pane_removed`. `seq` is per `epoch`, +1 per event, gap-free.',
      PRE_UPGRADE.replace('400 `want ?pane=<pane_id>`', '400 `want ?since=<epoch>:<seq>`').replace(', 404, 502 `herdr …: <stderr>`', ''),
      'Pinged every 30 s. Closes with 1000 when the server shuts down or the device is revoked (`device revoked`); with 1008 `client too slow` once more than 1 MiB waits unread.',
    ].join('\n\n'),
    query: t.Object({ token: t.Optional(token), since: t.Optional(since) }),
    send: {
      hello: { title: 'hello', summary: 'first frame: the list, or resume ok', payload: EventsHelloFrame },
      pane: { title: 'pane', summary: 'a row changed or appeared', payload: PaneEventFrame },
      paneRemoved: { title: 'pane_removed', summary: 'a pane closed', payload: PaneRemovedFrame },
      machine: {
        title: 'machine',
        summary: 'another machine merged by this bridge went offline, came back, needs attention, or was removed (never sent on a single machine)',
        payload: MachineEventFrame,
      },
    },
    receive: {
      visibility: {
        title: 'visibility',
        summary:
          "whether a window of the app is on screen: while any of a device's sockets last said visible, no notification is pushed to it. Send it on open and on every change; other frames are ignored",
        payload: VisibilityFrame,
      },
    },
  },
  {
    id: 'attach',
    address: '/attach',
    title: 'WS /attach — the raw terminal',
    description: [
      "A pane's terminal: the screen (with its colours) is sent as one binary frame that homes the cursor and repaints, whenever it changes. Input frames are typed into the pane.",
      PRE_UPGRADE + ' 404 is `no such pane`.',
      'Closes with 1000 when the server shuts down or the device is revoked.',
    ].join('\n\n'),
    query: t.Object({ pane, token: t.Optional(token) }),
    send: {
      screen: {
        title: 'screen',
        summary: 'the whole screen: ESC[H ESC[2J, then the rows with SGR codes, \\r\\n between rows',
        payload: { type: 'string', format: 'binary' },
        contentType: 'application/octet-stream',
      },
    },
    receive: {
      input: {
        title: 'input',
        summary: 'text or binary frame: typed into the pane as is (NUL dropped)',
        payload: { type: 'string' },
        contentType: 'text/plain',
      },
      resize: {
        title: 'resize',
        summary: 'the terminal size of the client (accepted; herdr has no resize command, so it changes nothing yet)',
        payload: AttachResizeFrame,
      },
    },
  },
]

type Obj = Record<string, unknown>

const schemaOf = (s: TSchema | Record<string, unknown>) => cleanSchema(JSON.parse(JSON.stringify(s))) as Obj

/** The AsyncAPI 3.0 document. `host` is where the client reached this bridge (the Host header). */
export function asyncApiDocument(opts: { version: string; host: string; channels?: WsChannel[] }): Obj {
  const channels: Obj = {}
  const operations: Obj = {}
  const messages: Obj = {}
  for (const c of opts.channels ?? WS_CHANNELS) {
    const own: Obj = {}
    for (const [name, m] of [...Object.entries(c.send), ...Object.entries(c.receive)]) {
      const key = `${c.id}${name[0].toUpperCase()}${name.slice(1)}`
      messages[key] = {
        name: m.title,
        title: m.title,
        summary: m.summary,
        contentType: m.contentType ?? 'application/json',
        payload: schemaOf(m.payload),
      }
      own[name] = { $ref: `#/components/messages/${key}` }
    }
    channels[c.id] = {
      address: c.address,
      title: c.title,
      description: c.description,
      messages: own,
      bindings: { ws: { method: 'GET', query: schemaOf(c.query), bindingVersion: '0.1.0' } },
    }
    const refs = (ms: Record<string, WsMessage>) => Object.keys(ms).map((n) => ({ $ref: `#/channels/${c.id}/messages/${n}` }))
    if (Object.keys(c.send).length)
      operations[`${c.id}Send`] = { action: 'send', channel: { $ref: `#/channels/${c.id}` }, title: `the bridge sends on ${c.address}`, messages: refs(c.send) }
    if (Object.keys(c.receive).length)
      operations[`${c.id}Receive`] = {
        action: 'receive',
        channel: { $ref: `#/channels/${c.id}` },
        title: `the bridge reads on ${c.address}`,
        messages: refs(c.receive),
      }
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'gothalo bridge — WebSocket protocols',
      version: opts.version,
      description:
        'The WebSockets of the gothalo bridge. The HTTP routes are in the OpenAPI document at /swagger/json (UI at /swagger). Every frame is a text JSON object unless its content type says otherwise.',
    },
    defaultContentType: 'application/json',
    servers: {
      bridge: {
        host: opts.host,
        protocol: 'ws',
        description: 'this bridge; wss:// behind an HTTPS proxy such as tailscale serve',
        security: [{ $ref: '#/components/securitySchemes/queryToken' }, { $ref: '#/components/securitySchemes/bearer' }],
      },
    },
    channels,
    operations,
    components: {
      messages,
      securitySchemes: {
        queryToken: { type: 'httpApiKey', name: 'token', in: 'query', description: 'a device or admin token in ?token=' },
        bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <token>, for clients that can set headers' },
      },
    },
  }
}
