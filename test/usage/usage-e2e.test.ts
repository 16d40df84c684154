// GET /usage and the rows' context_pct through the real app and the fake herdr,
// on real session files of every kind (fixtures/, copied from the corpus). Each
// expected figure was read off the records by hand (jq over the file) and is
// stated once here.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { appendFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import type { FakePane } from '../../src/demo/fake-herdr'
import { UsageSchema } from '../../src/usage/tally'
import { startBridge, tempDir, waitFor, type Bridge } from '../support/harness'
import { startFakeOpencode } from '../support/opencode-service'
import { agentPane, FAST } from '../support/transcript-socket'

const FIX = join(import.meta.dir, '../../fixtures')
const PANE = 'w1:p2'
let root: string
const bridges: Bridge[] = []

beforeAll(() => {
  root = tempDir('usage-e2e-')
})
afterEach(async () => {
  for (const b of bridges.splice(0)) await b.stop()
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** A copy of one fixture session file at `rel` below a fresh agent dir. */
function copied(from: string, rel: string): { dir: string; file: string } {
  const dir = join(root, `${basename(from, '.jsonl')}-${bridges.length}-${Math.random().toString(36).slice(2, 8)}`)
  const file = join(dir, rel)
  mkdirSync(dirname(file), { recursive: true })
  cpSync(from, file)
  return { dir, file }
}

async function usageOf(pane: FakePane, homes: Record<string, string>): Promise<{ b: Bridge; status: number; body: any }> {
  const b = await startBridge({ state: { panes: [pane] }, homes, timing: FAST })
  bridges.push(b)
  const res = await b.get(`/usage?pane=${PANE}`)
  const body = res.status === 200 ? await res.json() : await res.text()
  if (res.status === 200) expect(Value.Errors(UsageSchema, body).First()).toBeUndefined()
  return { b, status: res.status, body }
}

const CC_MIX = 'claude/cc332-mix/projects/-home-me-cc332-mix-proj/ea9756f3-1f9e-4820-89f1-c8e0e767d941.jsonl'
const CC_REAL = 'claude/cc-2139-real/projects/-home-USER-projects-spotter-worktrees-spotter-4te/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl'

function claudeCase(rel: string) {
  const sessionId = basename(rel, '.jsonl')
  const project = basename(dirname(rel))
  const { dir, file } = copied(join(FIX, rel), join('projects', project, `${sessionId}.jsonl`))
  const cwd = JSON.parse(
    readFileSync(file, 'utf8')
      .split('\n')
      .find((l) => l.includes('"cwd"'))!,
  ).cwd as string
  return { dir, file, sessionId, pane: agentPane('claude', cwd, { kind: 'id', value: sessionId }) }
}

describe('Claude Code', () => {
  // Read off the records by hand (jq), stated once:
  // - cc332-mix: 11 distinct message ids (4 written twice, once per content block), each 120 in /
  //   42 out; the last turn's prompt is 120 + 0 + 0; cost-state's totalCostUSD is 0.01716.
  // - a person's real 2.1.39 session: the last main-chain message (msg_012Vtrh1…) is input 1 +
  //   cache read 101863 + cache write 304; 217 distinct messages summed (last record of each id).
  //   Its model states no window, so no window and no pct are claimed.
  const CLAUDE_CASES = [
    {
      what: '2.1.332: per-message usage counted once per message id, cost from cost-state',
      rel: CC_MIX,
      want: {
        model: 'claude-opus-5-5',
        context: { used_tokens: 120 },
        tokens: { input: 1320, output: 462, cache_read: 0, cache_write: 0 },
        cost_usd: 0.01716,
        as_of: '2026-12-02T17:31:19.347Z',
      },
    },
    {
      what: "2.1.39, a person's real session: cache reads count toward the context, no window claimed",
      rel: CC_REAL,
      want: {
        model: 'claude-opus-4-6',
        context: { used_tokens: 102168 },
        tokens: { input: 242, output: 49467, cache_read: 16553628, cache_write: 237121 },
        as_of: '2026-02-12T15:05:00.730Z',
      },
    },
  ]
  for (const k of CLAUDE_CASES)
    test(k.what, async () => {
      const c = claudeCase(k.rel)
      const { body } = await usageOf(c.pane, { claudeDir: c.dir })
      expect(body).toEqual({ pane_id: PANE, agent_kind: 'claude', session_id: c.sessionId, ...k.want })
    })

  test('a session without usage records (older versions) has no context and no tokens, not zeros; its model and as_of all the same', async () => {
    const c = claudeCase(CC_MIX)
    const stripped = readFileSync(c.file, 'utf8')
      .split('\n')
      .map((l) => {
        if (!l.trim()) return l
        const r = JSON.parse(l)
        if (r.type === 'cost-state') return ''
        if (r.message?.usage) delete r.message.usage
        return JSON.stringify(r)
      })
      .join('\n')
    writeFileSync(c.file, stripped)
    const { body } = await usageOf(c.pane, { claudeDir: c.dir })
    // the records name their model though they carry no usage; as_of is the newest record's time
    expect(body).toEqual({ pane_id: PANE, agent_kind: 'claude', session_id: c.sessionId, model: 'claude-opus-5-5', as_of: '2026-12-02T17:31:19.347Z' })
  })

  test('a live append moves the figures; a model that states its window gives a percentage', async () => {
    const c = claudeCase(CC_MIX)
    const { b, body } = await usageOf(c.pane, { claudeDir: c.dir })
    expect(body.context).toEqual({ used_tokens: 120 })
    const last = readFileSync(c.file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type":"assistant"'))
      .pop()!
    const rec = JSON.parse(last)
    rec.uuid = '00000000-0000-4000-8000-000000000001'
    rec.parentUuid = JSON.parse(last).uuid
    rec.message.id = 'msg_live1'
    rec.message.model = 'claude-sonnet-4-5[1m]'
    rec.message.usage = { input_tokens: 10, cache_read_input_tokens: 249000, cache_creation_input_tokens: 990, output_tokens: 7 }
    appendFileSync(c.file, `${JSON.stringify(rec)}\n`)
    const after = await waitFor(async () => {
      const u = (await (await b.get(`/usage?pane=${PANE}`)).json()) as any
      return u.context.used_tokens !== 120 && u
    })
    expect(after.model).toBe('claude-sonnet-4-5[1m]')
    expect(after.context).toEqual({ used_tokens: 250000, window_tokens: 1_000_000, pct: 25 })
    expect(after.tokens).toEqual({ input: 1330, output: 469, cache_read: 249000, cache_write: 990 })
    // the row follows: context_pct on /snapshot once the bridge has read it
    const row = await waitFor(async () => {
      const s = await b.json('/snapshot')
      return s.panes[0].context_pct !== undefined && s.panes[0]
    })
    expect(row.context_pct).toBe(25)
  })
})

describe('the index cache', () => {
  test('after a restart /usage comes from the saved index: the session is not read again', async () => {
    const c = claudeCase(CC_MIX)
    const dataDir = join(root, `data-${Math.random().toString(36).slice(2, 8)}`)
    const life = async () => {
      const b = await startBridge({
        state: { panes: [c.pane] },
        homes: { claudeDir: c.dir },
        timing: FAST,
        deps: { indexCacheDir: join(dataDir, 'index-cache') },
      })
      const { jsonl, indexCache } = b.app.decorator.counters
      const body = (await (await b.get(`/usage?pane=${PANE}`)).json()) as any
      const seen = { builds: jsonl.indexBuilds, scanned: jsonl.bytesScanned, loads: indexCache.loads }
      await b.stop()
      await waitFor(() => b.app.decorator.jsonl.holding().heldFiles === 0 || undefined, 5000, 'the timeline released')
      if (seen.builds > 0) await waitFor(() => indexCache.saves > 0 || undefined, 5000, 'a saved index')
      await b.app.decorator.indexCache.flush(5000)
      return { body, seen }
    }
    const first = await life()
    expect(first.seen).toMatchObject({ builds: 1, loads: 0 })
    const again = await life()
    expect(again.seen).toEqual({ builds: 0, scanned: 0, loads: 1 })
    expect(again.body).toEqual(first.body)
    expect(again.body.cost_usd).toBe(0.01716)
  })
})

describe('pi, codex, opencode', () => {
  test('pi 0.73.1: usage and cost per message', async () => {
    const rel = 'pi/pi-basic/sessions/--home-me-pi-basic-proj--/2026-12-02T10-04-19-969Z_01a23636-547f-7174-a957-02ede8b4c7f6.jsonl'
    const { dir, file } = copied(join(FIX, rel), join('sessions', '--home-me-pi-basic-proj--', basename(rel)))
    const { body } = await usageOf(agentPane('pi', '/home/me/pi-basic/proj', { kind: 'path', value: file }), { piDir: dir })
    // six assistant messages, each usage {input 120, output 42, cacheRead 0, cacheWrite 0, cost.total 0}
    expect(body).toEqual({
      pane_id: PANE,
      agent_kind: 'pi',
      session_id: '01a23636-547f-7174-a957-02ede8b4c7f6',
      model: 'claude-mock-1',
      context: { used_tokens: 120 },
      tokens: { input: 720, output: 252, cache_read: 0, cache_write: 0 },
      cost_usd: 0,
      as_of: '2026-12-02T10:04:40.240Z',
    })
  })

  const CODEX = 'codex/codex-approval/sessions/2026/12/02/rollout-2026-12-02T16-00-10-01a2377c-1e15-7bf3-8026-e781f4373dde.jsonl'
  const CODEX_ID = '01a2377c-1e15-7bf3-8026-e781f4373dde'
  const codexCase = () => copied(join(FIX, CODEX), join('sessions', '2026/12/02', basename(CODEX)))
  const codexPane = () => agentPane('codex', '/home/me/codex-approval/proj', { kind: 'id', value: CODEX_ID })

  test('codex 0.171.0: the last token_count gives the context and its window, the totals the tokens; no cost recorded', async () => {
    const { dir } = codexCase()
    const { body } = await usageOf(codexPane(), { codexDir: dir })
    // last token_count: last_token_usage.input_tokens 2405 of model_context_window 258400;
    // total_token_usage {input 9492, cached 0, cache_write 0, output 168}; turn_context model gpt-5.5
    expect(body).toEqual({
      pane_id: PANE,
      agent_kind: 'codex',
      session_id: CODEX_ID,
      model: 'gpt-5.5',
      context: { used_tokens: 2405, window_tokens: 258400, pct: 1 },
      tokens: { input: 9492, output: 168, cache_read: 0, cache_write: 0 },
      as_of: '2026-12-02T16:00:26.044Z',
    })
  })

  test("codex: the plan's rate limits when it reports them, and context_pct on the row as the session grows", async () => {
    const { dir, file } = codexCase()
    const { b } = await usageOf(codexPane(), { codexDir: dir })
    const first = await waitFor(async () => (await b.json('/snapshot')).panes[0].context_pct)
    expect(first).toBe(1)
    // the corpus's token_count line, with the limits codex writes when the account has them
    // (rate_limits.primary/secondary: used_percent, window_minutes, resets_at in seconds)
    const last = JSON.parse(
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"token_count"'))
        .pop()!,
    )
    last.timestamp = '2026-12-02T16:00:30.000Z'
    last.payload.info.last_token_usage.input_tokens = 211000
    last.payload.rate_limits.primary = { used_percent: 42.5, window_minutes: 300, resets_at: 1796230800 }
    last.payload.rate_limits.secondary = { used_percent: 7, window_minutes: 10080, resets_at: 1796745600 }
    appendFileSync(file, `${JSON.stringify(last)}\n`)
    const u = await waitFor(async () => {
      const x = (await (await b.get(`/usage?pane=${PANE}`)).json()) as any
      return x.limits && x
    })
    expect(u.context).toEqual({ used_tokens: 211000, window_tokens: 258400, pct: 82 })
    expect(u.limits).toEqual([
      { name: '5h', used_pct: 42.5, resets_at: '2026-12-02T17:00:00.000Z' },
      { name: 'weekly', used_pct: 7, resets_at: '2026-12-08T16:00:00.000Z' },
    ])
    expect(u.as_of).toBe('2026-12-02T16:00:30.000Z')
    expect(await waitFor(async () => (await b.json('/snapshot')).panes[0].context_pct === 82)).toBe(true)
  })

  test('opencode 1.18.33: tokens and cost per message from its store', async () => {
    const dataHome = join(root, `oc-${Math.random().toString(36).slice(2, 8)}`)
    cpSync(join(FIX, 'opencode/data'), dataHome, { recursive: true })
    const id = 'ses_dc9c6f3f6ffeaI7KYi9o9i7LPb'
    const msgs = JSON.parse(readFileSync(join(FIX, `opencode/api/session-${id}-message.json`), 'utf8')) as any[]
    const assistant = msgs.filter((m) => m.info.role === 'assistant').map((m) => m.info)
    // every assistant message of this session states {input 120, output 42, cache {0, 0}} and cost 0
    expect(assistant.every((m) => m.tokens.input === 120 && m.tokens.output === 42 && m.cost === 0)).toBe(true)
    const { body } = await usageOf(agentPane('opencode', '/home/me/oc/proj', { kind: 'id', value: id }), {
      xdgDataHome: dataHome,
      xdgStateHome: join(dataHome, 'state'),
    })
    expect(body).toMatchObject({
      agent_kind: 'opencode',
      session_id: id,
      model: 'claude-mock-1',
      context: { used_tokens: 120 },
      tokens: { input: 120 * assistant.length, output: 42 * assistant.length, cache_read: 0, cache_write: 0 },
      cost_usd: 0,
    })
    expect(assistant.length).toBe(5)
  })
})

describe('opencode through its service', () => {
  test('a message still streaming replaces its figures, a new one adds: folded from the tail polls', async () => {
    const id = 'ses_dc9c81e7effeFPj4Gy4Pf06H0I'
    const v2 = JSON.parse(readFileSync(join(FIX, `opencode/v2/api-session-${id}-message.json`), 'utf8')).data as any[]
    const svc = startFakeOpencode({
      sessions: JSON.parse(readFileSync(join(FIX, 'opencode/api/api-session-list.json'), 'utf8')).data,
      messages: { [id]: structuredClone(v2) },
    })
    const stateHome = join(root, `oc-state-${Math.random().toString(36).slice(2, 8)}`)
    svc.register(stateHome)
    try {
      const { b, body } = await usageOf(agentPane('opencode', '/home/me/oc/proj', { kind: 'id', value: id }), {
        xdgStateHome: stateHome,
        xdgDataHome: join(stateHome, 'data'),
      })
      const assistants = v2.filter((m) => m.type === 'assistant')
      // every assistant message of this session: tokens {input 120, output 42, cache 0/0}, cost 0
      expect(assistants.every((m) => m.tokens.input === 120 && m.tokens.output === 42 && m.cost === 0)).toBe(true)
      expect(body.tokens).toEqual({ input: 120 * assistants.length, output: 42 * assistants.length, cache_read: 0, cache_write: 0 })
      const turn: any = {
        id: 'msg_zz02',
        type: 'assistant',
        agent: 'build',
        model: { id: 'm2', providerID: 'p' },
        time: { created: 1796206200100 },
        cost: 0.5,
        tokens: { input: 900, output: 1, reasoning: 0, cache: { read: 5000, write: 100 } },
        content: [],
      }
      svc.messages.get(id)!.push(turn)
      const ask = async () => (await (await b.get(`/usage?pane=${PANE}`)).json()) as any
      const first = await waitFor(async () => {
        const u = await ask()
        return u.model === 'm2' && u
      })
      expect(first.context).toEqual({ used_tokens: 6000 })
      expect(first.cost_usd).toBe(0.5)
      turn.tokens = { input: 900, output: 80, reasoning: 0, cache: { read: 5000, write: 100 } }
      turn.cost = 0.75
      turn.time.completed = 1796206201000
      const done = await waitFor(async () => {
        const u = await ask()
        return u.cost_usd === 0.75 && u
      })
      expect(done.tokens).toEqual({ input: 120 * assistants.length + 900, output: 42 * assistants.length + 80, cache_read: 5000, cache_write: 100 })
    } finally {
      await svc.stop()
    }
  })
})

describe('what /usage refuses', () => {
  test('hostile and unknown panes, kinds without a transcript, panes without a session', async () => {
    const b = await startBridge({
      state: {
        panes: [agentPane('claude', '/nowhere', undefined, 'w1:p1'), agentPane('mystery', '/x', undefined, 'w1:p2')],
      },
      homes: { claudeDir: join(root, 'empty-claude') },
      timing: FAST,
    })
    bridges.push(b)
    const ask = async (q: string) => {
      const r = await b.get(`/usage${q}`)
      return [r.status, await r.text()]
    }
    expect(await ask('?pane=../../x')).toEqual([404, 'no such agent'])
    expect(await ask('?pane=w9:p9')).toEqual([404, 'no such agent'])
    expect((await ask(''))[0]).toBe(400)
    expect(await ask('?pane=w1:p1')).toEqual([404, 'no transcript file for pane'])
    expect(await ask('?pane=w1:p2')).toEqual([404, 'transcript not supported for this agent kind'])
    const snap = await b.json('/snapshot')
    expect(snap.panes.map((p: any) => 'context_pct' in p)).toEqual([false, false])
  })
})
