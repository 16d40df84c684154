// GET /sessions (docs/bridge.md, "Every past conversation"): every past session of
// the four agents from their own stores, newest first, filtered and paged; the
// bad input each parameter refuses.
import type { Static } from '@sinclair/typebox'
import type { PastSessionSchema } from '../../src/routes/history'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { utimesSync } from 'node:fs'
import { pairDevice, startBridge, type Bridge } from '../support/harness'
import { agentPane } from '../support/transcript-socket'
import { historyHome, type HistoryHome } from '../support/history-home'

let b: Bridge
let h: HistoryHome

type Row = Static<typeof PastSessionSchema>

beforeAll(async () => {
  h = historyHome()
  // known, distinct times: claude newest, then pi, then the two codex rollouts
  const t0 = Date.parse('2026-12-03T10:00:00Z') / 1000
  utimesSync(h.files.claude, t0 + 400, t0 + 400)
  utimesSync(h.files.pi, t0 + 300, t0 + 300)
  utimesSync(h.files.codex[0]!, t0 + 200, t0 + 200)
  utimesSync(h.files.codex[1]!, t0 + 100, t0 + 100)
  b = await startBridge({
    homes: h.homes,
    state: { panes: [agentPane('pi', h.dirs.pi, { kind: 'path', value: h.files.pi }, 'w1:p3')] },
    deps: { projectRoots: [h.home] },
  })
})
afterAll(() => b?.stop())

const list = async (q = '') => (await b.json(`/sessions${q}`)) as { sessions: Row[]; next?: string }

describe('GET /sessions', () => {
  test("every kind's sessions, newest first, with project, title, times and the live pane", async () => {
    const { sessions, next } = await list()
    expect(next).toBeUndefined()
    const keys = sessions.map((s) => `${s.agent_kind}:${s.session_id}`)
    // opencode's fixture sessions are from 2026-12-01/02: older than the files touched above
    expect(keys.slice(0, 4)).toEqual([`claude:${h.ids.claude}`, `pi:${h.ids.pi}`, `codex:${h.ids.codex[0]}`, `codex:${h.ids.codex[1]}`])
    expect(sessions.some((s) => s.agent_kind === 'opencode' && s.project === h.dirs.opencode && s.title === 'Opencode demo')).toBe(true)
    const times = sessions.map((s) => Date.parse(s.last_activity_ts))
    expect(times).toEqual([...times].sort((x, y) => y - x))
    const by = Object.fromEntries(sessions.map((s) => [`${s.agent_kind}:${s.session_id}`, s]))
    expect(by[`claude:${h.ids.claude}`]!.project).toBe(h.dirs.claude)
    expect(by[`codex:${h.ids.codex[0]}`]!.project).toBe(h.dirs.codex)
    expect(by[`pi:${h.ids.pi}`]!.pane_id).toBe('w1:p3')
    expect(by[`claude:${h.ids.claude}`]!.pane_id).toBeUndefined()
    // started: the session's first record (pi's header names 2026-12-02T10:04:19.969Z)
    expect(by[`pi:${h.ids.pi}`]!.started_ts).toBe('2026-12-02T10:04:19.969Z')
    for (const s of sessions) {
      expect(Date.parse(s.started_ts)).toBeLessThanOrEqual(Date.parse(s.last_activity_ts))
      expect(s.title.length).toBeGreaterThan(0)
    }
  })

  test('filters: kind, project; paging with next/before covers every session once', async () => {
    expect((await list('?kind=codex')).sessions.map((s) => s.session_id)).toEqual(h.ids.codex)
    expect((await list(`?project=${encodeURIComponent(h.dirs.pi)}`)).sessions.map((s) => s.session_id)).toEqual([h.ids.pi])
    expect((await list(`?project=${encodeURIComponent('/nowhere')}`)).sessions).toEqual([])
    const all = (await list()).sessions.map((s) => s.session_id)
    const paged: string[] = []
    let before = ''
    for (let i = 0; i < 20; i++) {
      const page = await list(`?limit=2${before ? `&before=${encodeURIComponent(before)}` : ''}`)
      expect(page.sessions.length).toBeLessThanOrEqual(2)
      paged.push(...page.sessions.map((s) => s.session_id))
      if (!page.next) break
      before = page.next
    }
    expect(paged).toEqual(all)
    // a time: every session last active before it
    const older = await list(`?before=${encodeURIComponent('2026-12-03T10:05:00Z')}`)
    expect(older.sessions.slice(0, 2).map((s) => s.session_id)).toEqual(h.ids.codex)
  })

  test("a page's `next` from files with sub-millisecond mtimes (as real files have) is taken back as `before`", async () => {
    const t0 = Date.parse('2026-12-03T10:00:00Z') / 1000
    const times: [string, number][] = [
      [h.files.claude, 400],
      [h.files.pi, 300],
      [h.files.codex[0]!, 200],
      [h.files.codex[1]!, 100],
    ]
    try {
      // ns-precise mtimes: two of them in the same millisecond
      for (const [f, dt] of times) utimesSync(f, t0 + dt + 0.1234567, t0 + dt + 0.1234567)
      utimesSync(h.files.codex[1]!, t0 + 200 + 0.1234999, t0 + 200 + 0.1234999)
      const all = (await list()).sessions.map((s) => `${s.agent_kind}:${s.session_id}`)
      const paged: string[] = []
      let before = ''
      for (let i = 0; i < 20; i++) {
        const r = await b.get(`/sessions?limit=1${before ? `&before=${encodeURIComponent(before)}` : ''}`)
        expect(r.status).toBe(200)
        const page = (await r.json()) as { sessions: Row[]; next?: string }
        paged.push(...page.sessions.map((s) => `${s.agent_kind}:${s.session_id}`))
        if (!page.next) break
        before = page.next
      }
      expect(paged).toEqual(all)
    } finally {
      for (const [f, dt] of times) utimesSync(f, t0 + dt, t0 + dt)
    }
  })

  test('bad input: 400 naming the parameter', async () => {
    for (const [q, body] of [
      ['?kind=vim', 'kind: one of claude, pi, opencode, codex'],
      ['?limit=0', 'limit: a whole number from 1 to 200'],
      ['?limit=201', 'limit: a whole number from 1 to 200'],
      ['?limit=-1', 'limit: a whole number from 1 to 200'],
      ['?limit=abc', 'limit: a whole number from 1 to 200'],
      ['?before=yesterday', 'before: the `next` of the previous page, or an ISO 8601 time'],
      ['?before=1.claude:../../x', 'before: the `next` of the previous page, or an ISO 8601 time'],
    ] as const) {
      const r = await b.get(`/sessions${q}`)
      expect([q, r.status, await r.text()]).toEqual([q, 400, body])
    }
  })

  test('scope: read; no token is 401', async () => {
    expect((await b.get('/sessions', null)).status).toBe(401)
    const { token } = await pairDevice(b, 'reader', ['read'])
    expect((await b.get('/sessions', token)).status).toBe(200)
  })
})
