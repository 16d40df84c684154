// The v2 service client against a real HTTP server on loopback that answers the
// documented JSON (the shared fake service, test/support/opencode-service.ts): the
// captured /api/session list, and (for messages) the derived v2 projection of the
// captured conversations.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { normalizeOpencodeMessages } from '../../../../src/transcript/kinds/opencode/normalize'
import { createOpencodeServiceClient, findService, OpencodeServiceError, serviceFileName } from '../../../../src/transcript/kinds/opencode/service'
import { emptyTailState, tailStep } from '../../../../src/transcript/kinds/opencode/tail'
import { startFakeOpencode, type FakeOpencodeService } from '../../../support/opencode-service'

const FIX = join(import.meta.dir, '../../../../fixtures/opencode')
const DEMO = 'ses_dc9c81e7effeFPj4Gy4Pf06H0I'
const PERMS = 'ses_dc9c6f3f6ffeaI7KYi9o9i7LPb'
const read = (p: string) => JSON.parse(readFileSync(join(FIX, p), 'utf8'))
const sessionList = read('api/api-session-list.json')
const messages: Record<string, unknown[]> = {
  [DEMO]: read(`v2/api-session-${DEMO}-message.json`).data,
  // the real capture: this build's projection of the permissions session was empty
  [PERMS]: read(`api/api-session-${PERMS}-message.json`).data,
}
const PASSWORD = 's3cret'

// the shared fake service, one session per list page so listSessions must follow cursor.next
let svc: FakeOpencodeService
let url: string
let seen: string[]
beforeAll(() => {
  svc = startFakeOpencode({ sessions: sessionList.data, messages, password: PASSWORD, sessionsPerPage: 1 })
  url = svc.url
  seen = svc.seen
})
afterAll(() => svc.stop())

describe('service discovery', () => {
  const state = mkdtempSync(join(tmpdir(), 'oc-state-'))
  afterAll(() => rmSync(state, { recursive: true, force: true }))

  test('reads $XDG_STATE_HOME/opencode/service.json', async () => {
    mkdirSync(join(state, 'opencode'), { recursive: true })
    writeFileSync(join(state, 'opencode/service.json'), JSON.stringify({ id: 'x', version: '2.1.0-next.1', url, pid: 123, password: PASSWORD, startedAt: 5 }))
    expect(await findService(state)).toEqual({ url, password: PASSWORD, pid: 123, id: 'x', version: '2.1.0-next.1', startedAt: 5 })
  })

  test('missing, garbage or url-less registrations are no service', async () => {
    expect(await findService(join(state, 'nowhere'))).toBeUndefined()
    writeFileSync(join(state, 'opencode', serviceFileName('prod')), '{"url": 42')
    expect(await findService(state, 'prod')).toBeUndefined()
    writeFileSync(join(state, 'opencode', serviceFileName('local')), JSON.stringify({ pid: 1 }))
    expect(await findService(state, 'local')).toBeUndefined()
  })

  test('channel file names', () => {
    expect(serviceFileName()).toBe('service.json')
    expect(serviceFileName('beta')).toBe('service.json')
    expect(serviceFileName('preview/a')).toBe('service-preview-a.json')
  })
})

describe('client', () => {
  const client = () => createOpencodeServiceClient({ url, password: PASSWORD })

  test('getSession returns the location directory; unknown id → undefined', async () => {
    expect(await client().getSession(DEMO)).toEqual({
      id: DEMO,
      directory: '/home/me/oc/proj',
      title: 'Opencode demo',
      timeCreated: 1796205961601,
      timeUpdated: 1796206007713,
    })
    expect(await client().getSession('ses_unknown')).toBeUndefined()
  })

  test('listSessions follows cursor.next through every page', async () => {
    seen.length = 0
    expect((await client().listSessions()).map((s) => s.id)).toEqual([PERMS, DEMO])
    expect(seen.filter((s) => s.startsWith('/api/session?')).length).toBe(2)
  })

  test('allMessages pages (asc) and normalizes to the captured conversation', async () => {
    const c = createOpencodeServiceClient({ url, password: PASSWORD })
    const first = await c.messages(DEMO, { order: 'asc', limit: 4 })
    expect(first.data.length).toBe(4)
    expect(first.next).toBeDefined()
    const second = await c.messages(DEMO, { limit: 4, cursor: first.next })
    expect((second.data[0] as { id: string }).id).toBe((messages[DEMO][4] as { id: string }).id)
    const all = await c.allMessages(DEMO)
    expect(all).toEqual(messages[DEMO])
    expect(normalizeOpencodeMessages(all).length).toBe(normalizeOpencodeMessages(read(`api/session-${DEMO}-message.json`)).length)
    expect(await c.allMessages(PERMS)).toEqual([])
  })

  test('newestMessagesUntil stops at the page holding the watermark and feeds tailStep', async () => {
    const c = client()
    const backlog = tailStep(emptyTailState, await c.newestMessagesUntil(DEMO, undefined, 3))
    expect(backlog.newDrafts.length).toBeGreaterThan(10)
    seen.length = 0
    const desc = await c.newestMessagesUntil(DEMO, backlog.state.watermark, 3)
    expect(desc.length).toBe(3) // the watermark is the newest message: one page is enough
    expect(seen.length).toBe(1)
    expect(tailStep(backlog.state, desc)).toEqual({ state: backlog.state, newDrafts: [], reachedWatermark: true })
  })

  test('a wrong password is a 401 error', async () => {
    const bad = createOpencodeServiceClient({ url, password: 'wrong' })
    const err = await bad.getSession(DEMO).catch((e) => e)
    expect(err).toBeInstanceOf(OpencodeServiceError)
    expect(err.status).toBe(401)
    const none = createOpencodeServiceClient({ url })
    expect(((await none.listSessions().catch((e) => e)) as OpencodeServiceError).status).toBe(401)
  })

  test('no server listening is a status-0 error, not a hang', async () => {
    const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') })
    const deadUrl = `http://127.0.0.1:${probe.port}`
    probe.stop(true)
    const err = await createOpencodeServiceClient({ url: deadUrl, password: PASSWORD })
      .listSessions()
      .catch((e) => e)
    expect(err).toBeInstanceOf(OpencodeServiceError)
    expect(err.status).toBe(0)
  })

  test('a custom fetch is used (the source can share one with timeouts)', async () => {
    let calls = 0
    const c = createOpencodeServiceClient({
      url,
      password: PASSWORD,
      fetch: ((input: string | URL | Request, init?: RequestInit) => {
        calls++
        return fetch(input, init)
      }) as typeof fetch,
    })
    await c.getSession(DEMO)
    expect(calls).toBe(1)
  })
})
