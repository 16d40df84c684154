// herdr missing, its server not running, hanging past the time limit, failing:
// the bridge still answers, with herdr's own message, and never hangs.
import { afterEach, expect, test } from 'bun:test'
import { claudePane, startBridge, type Bridge } from '../support/harness'

let b: Bridge | undefined
afterEach(async () => {
  await b?.stop()
  b = undefined
})

test('herdr missing: healthz says so, agent endpoints answer 502', async () => {
  b = await startBridge({ herdrBin: '/nonexistent/herdr' })
  const h: any = await b.json('/healthz', null)
  expect(h.herdr).toEqual({ found: false, version: null, server: 'not_running' })
  const r = await b.get('/agent-state?pane=w1:p2')
  expect(r.status).toBe(502)
  expect(await r.text()).toBe('herdr agent get w1:p2: herdr not found (/nonexistent/herdr)')
})

test('server not running: 502 with herdr stderr', async () => {
  b = await startBridge({ state: { server: 'not_running', panes: [claudePane()] } })
  const h: any = await b.json('/healthz', null)
  expect(h.herdr).toEqual({ found: true, version: '0.8.2', server: 'not_running' })
  const r = await b.get('/snapshot')
  expect(r.status).toBe(502)
  const body = await r.text()
  expect(body.startsWith('herdr api snapshot: {"id":"cli:api:snapshot","error":{"code":"server_not_running"')).toBe(true)
})

test('a hung herdr is killed at the time limit: 502, not a hung request', async () => {
  b = await startBridge({ state: { hang: ['agent get'], panes: [claudePane()] }, herdrTimeoutMs: 400 })
  const t0 = performance.now()
  const r = await b.get('/agent-state?pane=w1:p2')
  const took = performance.now() - t0
  expect(r.status).toBe(502)
  expect(await r.text()).toBe('herdr agent get w1:p2: timed out after 400 ms')
  expect(took).toBeLessThan(3000)
})

test('any other herdr error is 502 with its stderr', async () => {
  b = await startBridge({ state: { fail: { 'api snapshot': { code: 'internal', message: 'boom' } }, panes: [] } })
  const r = await b.get('/snapshot')
  expect(r.status).toBe(502)
  expect(await r.text()).toBe('herdr api snapshot: {"error":{"code":"internal","message":"boom"},"id":"cli:api:snapshot"}')
})
