// Text typed from the phone is not on a command line (issue 10, item 9): any
// local user can read /proc/<pid>/cmdline, and herdr's CLI takes text only as
// arguments, so typed text goes to herdr's own socket (0600). Failed sends
// never log it, and 502 bodies never quote it.
import { afterEach, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN, FrameQueue, startBridge, waitFor, type Bridge } from '../support/harness'

const SECRET = 'hunter2-secret-password'
let b: Bridge | undefined
afterEach(async () => {
  await b?.stop()
  b = undefined
})

/** Every herdr request the fake saw, CLI (argv) and socket (`via: 'socket'`). */
function requests(b: Bridge): { argv: string[]; via?: string }[] {
  return readFileSync(join(b.dir, 'herdr-calls.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
}

const shell = { pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', screen: '$ \n' }

test('/send and /attach type through the socket: no herdr command line ever holds the text', async () => {
  b = await startBridge({ state: { panes: [shell] }, timing: { attachPollMs: 1000 } })
  expect((await b.post('/send', { pane: 'w1:p1', text: `${SECRET}\n` })).status).toBe(200)
  const q = new FrameQueue(`${b.wsBase}/attach?pane=w1:p1&token=${ADMIN}`)
  await q.opened
  q.send(`${SECRET}-attach`)
  await waitFor(() => requests(b!).some((r) => r.argv.join(' ').includes(`${SECRET}-attach`)), 10_000, 'the attach input')
  q.close()
  const withText = requests(b).filter((r) => r.argv.some((a) => a.includes(SECRET)))
  expect(withText.length).toBe(2)
  expect(withText.every((r) => r.via === 'socket')).toBe(true)
  // the Enter is a key, not text, and may go by the CLI
  expect(requests(b).some((r) => r.via === undefined && r.argv.join(' ') === 'pane send-keys w1:p1 enter')).toBe(true)
})

test('a failed send: 502 without the text, and no log line with it', async () => {
  b = await startBridge({ state: { panes: [shell], fail: { 'pane send-text': { code: 'pane_send_failed', message: 'write failed' } } } })
  const r = await b.post('/send', { pane: 'w1:p1', text: SECRET })
  expect(r.status).toBe(502)
  const body = await r.text()
  expect(body).toBe('herdr pane send-text w1:p1 …: write failed')
  const q = new FrameQueue(`${b.wsBase}/attach?pane=w1:p1&token=${ADMIN}`)
  await q.opened
  q.send(SECRET)
  await waitFor(() => b!.logs.some((l) => l.includes('send failed')), 10_000, 'the failure to be logged')
  q.close()
  expect(b.logs.join('\n')).not.toContain(SECRET)
})

test('no herdr server behind the socket: 502 naming the socket, not the text', async () => {
  b = await startBridge({ state: { panes: [shell] } })
  await b.socket!.close()
  const r = await b.post('/send', { pane: 'w1:p1', text: SECRET })
  expect(r.status).toBe(502)
  const body = await r.text()
  expect(body).toStartWith('herdr pane send-text w1:p1 …: no herdr server is running at ')
  expect(body).not.toContain(SECRET)
})
