// Starting, stopping and resuming agents from the phone (docs/bridge.md):
// GET /projects, GET /dirs, POST /agent-start, POST /agent-stop. The logic is in
// src/projects/; these are the edges.
import { Elysia, t } from 'elysia'
import type { Ctx } from '../server/ctx'
import { needs } from '../auth/scopes'
import { AGENT_KINDS, projectsOf } from '../projects/listing'
import { listDir, listRoots, resolveDir } from '../projects/roots'
import { startAgent } from '../projects/start'
import { SEND_MAX, typedTextProblem } from '../answer/typed-text'
import type { AuditContext } from '../audit/auditor'
import { isSamePane } from '../projects/started'
import { HerdrError, herdrFor } from '../herdr/client'
import { machineQuery, paneTargets, plainTextErrors, plausibleTarget, requestSignal } from './edge'

const Kind = t.Union([t.Literal('claude'), t.Literal('pi'), t.Literal('opencode'), t.Literal('codex')], { description: 'the agent to start' })

const SessionSchema = t.Object({
  agent_kind: Kind,
  session_id: t.String({ description: 'what POST /agent-start takes as `resume`' }),
  title: t.String({ description: 'the first human prompt, one line, at most 120 characters ("" when none yet)' }),
  last_activity_ts: t.String({ description: 'ISO 8601: the session file last written' }),
  pane_id: t.Optional(t.String({ description: 'the live pane showing this session' })),
})

const ProjectSchema = t.Object({
  path: t.String(),
  name: t.String(),
  last_activity_ts: t.String(),
  sessions: t.Array(SessionSchema, { description: 'newest first, at most 20' }),
})

const DirsSchema = t.Object({
  path: t.String({ description: '"" for the list of roots' }),
  parent: t.Optional(t.String({ description: 'the directory above, when it is inside the roots' })),
  entries: t.Array(t.Object({ name: t.String(), git: t.Boolean({ description: 'a git repository' }) })),
  truncated: t.Optional(t.Literal(true)),
})

const START_ERROR = 'want {"kind":"claude"|"pi"|"opencode"|"codex","cwd","prompt"?,"resume"?,"name"?}'

export function projectRoutes(ctx: Ctx) {
  const p = ctx.projects
  return new Elysia({ name: 'projects' })
    .use(paneTargets(ctx))
    .get(
      '/projects',
      async () => {
        const snap = ctx.watch.latest() ?? (await ctx.herdr.snapshot().catch(() => undefined))
        return { projects: projectsOf(await p.finder.find(), snap?.agents ?? [], p.roots, ctx.clock()) }
      },
      {
        query: t.Object({
          machine: machineQuery(),
        }),
        response: { 200: t.Object({ projects: t.Array(ProjectSchema, { description: 'newest first, at most 50' }) }), ...plainTextErrors(401, 403) },
        detail: needs('read', {
          summary: 'The directories agents worked in, with their sessions',
          description:
            "From each agent's own store (Claude Code projects, pi sessions, codex rollouts, opencode's database) and herdr's live panes, inside the project roots. A session file is read again only when it changed.",
          tags: ['projects'],
        }),
      },
    )
    .get(
      '/dirs',
      ({ query, status }) => {
        if (query.path === undefined) return listRoots(p.roots)
        const dir = resolveDir(query.path, p.roots, ctx.homes.home)
        if (!dir) return status(404, 'no such directory')
        return listDir(dir, p.roots)
      },
      {
        query: t.Object({
          path: t.Optional(t.String({ maxLength: 4096 })),
          machine: machineQuery(),
        }),
        response: { 200: DirsSchema, ...plainTextErrors(401, 403, 404) },
        detail: needs('read', {
          summary: 'Browse the directories inside the project roots',
          description:
            'Directories only, no hidden ones, sorted, at most 500; git repositories marked. Without `path`, the roots. A path outside the roots (symlinks followed) is 404 `no such directory`.',
          tags: ['projects'],
        }),
      },
    )
    .post(
      '/agent-start',
      async (c) => {
        const { body, status, request } = c
        // the first prompt is typed into the agent: /send's rules
        const problem = body.prompt === undefined ? undefined : typedTextProblem(body.prompt)
        if (problem !== undefined) return status(400, `prompt: ${problem}`)
        const cwd = resolveDir(body.cwd, p.roots, ctx.homes.home)
        if (!cwd) return status(404, 'no such directory')
        const out = await startAgent(
          {
            herdr: ctx.herdr,
            snapshot: () => ctx.herdr.snapshot(),
            sessions: () => p.finder.find(),
            installed: p.installed,
            searchPath: p.searchPath,
            remember: (x) => p.started.add(x),
            forget: (pane) => p.started.remove(pane),
            clock: ctx.clock,
            promptLater: (name, prompt) => p.later.add(name, prompt),
            log: ctx.log,
          },
          { kind: body.kind, cwd, prompt: body.prompt, resume: body.resume, name: body.name },
        )
        void request
        if (out.status === 201) return status(201, out.body)
        // a start that timed out made a pane all the same: its row names it (and the agent's name), as a 201's does
        if (out.pane_id !== undefined) ctx.audit.answered(c as unknown as AuditContext, out.status, { pane_id: out.pane_id, name: out.name })
        return status(out.status, out.text)
      },
      {
        body: t.Object(
          {
            kind: Kind,
            cwd: t.String({ minLength: 1, maxLength: 4096 }),
            prompt: t.Optional(
              t.String({
                minLength: 1,
                // /send's 4096 is in characters (typedTextProblem decides): as UTF-16 units up to twice that
                maxLength: 2 * SEND_MAX,
                description: "sent once the agent is ready (never on a command line); /send's rules: control characters other than \\n are refused",
              }),
            ),
            resume: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'a session_id from GET /projects for this cwd and kind' })),
            name: t.Optional(t.String({ maxLength: 32, description: "herdr's agent name: 1-32 lower-case letters, digits, - or _; default <kind>-<4 hex>" })),
            machine: t.Optional(
              t.String({ maxLength: 32, description: 'start it on another machine (its label in GET /machines); the answer names its pane LABEL/PANE' }),
            ),
          },
          { error: START_ERROR },
        ),
        response: {
          201: t.Object({ pane_id: t.String(), name: t.String(), agent_status: t.Optional(t.Literal('blocked')) }),
          ...plainTextErrors(400, 401, 403, 404, 409, 502, 503),
          504: t.String({
            description: 'not ready within 30 s: the text names the pane, left running (POST /agent-stop closes it), and says the prompt was not sent',
          }),
        },
        detail: needs(
          'start',
          {
            summary: 'Start (or resume) an agent in a new tab of the project',
            description:
              '201 once herdr reports the agent ready; with `agent_status: "blocked"` when it shows a dialog first (a folder trust prompt): answer it like any other, and the prompt is sent once it is ready. The command is herdr\'s own for the kind; `resume` becomes the agent\'s own resume option. 404 `no such directory` (outside the roots) or `no such session`; 409 `name taken` or `session is live in pane <id>` (resuming a session a live pane shows: nothing is made); 503 `<kind> is not installed` naming the PATH searched; 504 past 30 s, the pane left running and the prompt not sent.',
            tags: ['projects'],
          },
          'agent.start',
        ),
      },
    )
    .post(
      '/agent-stop',
      async ({ body, status, request }) => {
        const target = body.pane
        if (!plausibleTarget(target)) return status(404, 'no such agent')
        const herdr = herdrFor(ctx.herdr, requestSignal(request, ctx.timing.requestDeadlineMs))
        const notFound = (e: unknown) => {
          if (e instanceof HerdrError && e.kind === 'not_found') return undefined
          throw e
        }
        const agent = await herdr.agentGet(target).catch(notFound)
        let pane: string
        if (agent) {
          if (agent.agent_status === 'working' && body.force !== true) return status(409, 'agent is working')
          pane = agent.pane_id ?? target
        } else {
          // no agent in it: a pane the bridge made for a start (a shell left by a timed-out one) is closed all the same
          const made = p.started.get(target)
          const now = made && (await herdr.snapshot()).panes.find((x) => x.pane_id === target)
          if (!made || !now || !isSamePane(made, now)) {
            if (made) p.started.remove(target)
            return status(404, 'no such agent')
          }
          pane = target
        }
        if ((await herdr.paneClose(pane).then(() => true, notFound)) === undefined) return status(404, 'no such agent')
        p.started.remove(pane)
        return { stopped: true as const }
      },
      {
        body: t.Object({ pane: t.String({ minLength: 1 }), force: t.Optional(t.Boolean()) }, { error: 'want {"pane": pane_id, "force"?: bool}' }),
        response: {
          200: t.Object({ stopped: t.Literal(true) }),
          ...plainTextErrors(400, 401, 403, 404, 409, 502),
        },
        detail: needs(
          'start',
          {
            summary: 'Stop an agent: close its pane',
            description:
              '409 `agent is working` unless `force`; 404 `no such agent`. A pane the bridge made for /agent-start is closed whatever runs in it (a shell left by a start that timed out).',
            tags: ['projects'],
          },
          'agent.stop',
        ),
      },
    )
}

export { AGENT_KINDS }
