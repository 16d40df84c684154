// Attachments end to end: uploads checked by their bytes, stored privately and
// whole or not at all; handed to each agent the way it takes a file (a pasted
// path awaited as its placeholder, or the path in the message for pi); refusals.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { createAttachmentStore, type Attachment } from '../../src/attachments/store'
import { pastes, placeholders } from '../../src/attachments/hand'
import { ROOT, claudePane, fakePane, pairDevice, startBridge, tempDir, type Bridge } from '../support/harness'

const S = (f: string) => join(ROOT, 'fixtures/screens-bridge', f)
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d494844520000000100000001', 'hex'), Buffer.alloc(40)])
const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\n%%EOF\n')

let b: Bridge
let phone: { device_id: string; token: string }
let other: { device_id: string; token: string }

beforeAll(async () => {
  b = await startBridge({
    herdrSocket: true,
    state: {
      panes: [
        claudePane({ pane_id: 'w1:p1', screen_file: S('mode-default.txt'), echo: 'composer', agent: { agent_status: 'idle', state_change_seq: 1 } } as never),
        fakePane('pi', { pane_id: 'w1:p2', screen: '> ', agent: { agent_status: 'idle', state_change_seq: 1 } }),
        fakePane('opencode', { pane_id: 'w1:p3', screen: '> ', echo: 'shell', agent: { agent_status: 'idle', state_change_seq: 1 } }),
        claudePane({ pane_id: 'w1:p4', screen_file: S('mode-default.txt'), agent: { agent_status: 'working', state_change_seq: 1 } }),
        { pane_id: 'w1:p5', workspace_id: 'w1', tab_id: 'w1:t1', cwd: '/home/me', screen: 'me@box:~$ \n' },
      ],
    },
  })
  phone = await pairDevice(b, 'phone')
  other = await pairDevice(b, 'other')
})
afterAll(() => b?.stop())

const upload = (body: string | Uint8Array | ReadableStream<Uint8Array>, type: string, token = phone.token, pane = 'w1:p1') =>
  fetch(`${b.base}/attachments?pane=${pane}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': type }, body })
const send = (body: unknown, token = phone.token) => b.post('/send', body, token)
const input = () => b.calls().filter((c) => c[1] === 'send-input' || c[1] === 'send-text' || c[1] === 'send-keys')
const dir = () => join(b.dir, 'attachments')

describe('POST /attachments', () => {
  test("a PNG: stored under the bridge's own name, 0600 in a 0700 directory, the bytes as sent", async () => {
    const r = await upload(PNG, 'image/png')
    expect(r.status).toBe(201)
    const a = (await r.json()) as { id: string; path: string; bytes: number; mime: string }
    expect(a).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/), path: join(dir(), `${a.id}.png`), bytes: PNG.length, mime: 'image/png' })
    expect(readFileSync(a.path)).toEqual(PNG)
    expect(statSync(a.path).mode & 0o777).toBe(0o600)
    expect(statSync(dir()).mode & 0o777).toBe(0o700)
  })

  test('refused: a type not allowed, bytes that are not what the header says, an empty body, too large, an unknown pane, a read-only device', async () => {
    const before = readdirSync(dir()).length
    const cases: [Response, number, string][] = [
      [await upload('hello', 'application/zip'), 415, 'want one of image/png, image/jpeg, image/webp, image/gif, application/pdf, text/plain'],
      [await upload('just text', 'image/png'), 415, 'the bytes are text/plain, not image/png'],
      [await upload(PNG, 'image/jpeg'), 415, 'the bytes are image/png, not image/jpeg'],
      [await upload(Buffer.from([0, 1, 2, 3]), 'text/plain'), 415, 'the bytes are not text/plain'],
      [await upload('', 'text/plain'), 400, 'empty body'],
      [await upload(Buffer.alloc(10 * 1024 * 1024 + 1, 0x61), 'text/plain'), 413, 'larger than 10 MiB'],
      [await upload(PNG, 'image/png', phone.token, 'w9:p9'), 404, 'no such agent'],
    ]
    for (const [r, status, text] of cases) expect([r.status, await r.text()]).toEqual([status, text])
    // a body that grows past the limit without saying its length is cut off, and nothing of it stays
    let n = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (n++ < 12) c.enqueue(new Uint8Array(1024 * 1024).fill(0x61))
        else c.close()
      },
    })
    const chunked = await upload(stream, 'text/plain').catch((e) => e as Error)
    if (!(chunked instanceof Error)) expect(chunked.status).toBe(413)
    const viewer = await pairDevice(b, 'viewer', ['read'])
    const denied = await upload(PNG, 'image/png', viewer.token)
    expect([denied.status, await denied.text()]).toEqual([403, 'forbidden: needs scope type'])
    expect(readdirSync(dir()).length).toBe(before)
  })
})

describe('POST /send with attachments', () => {
  test('Claude Code: the path pasted alone, its placeholder awaited, then the message and Enter', async () => {
    const a = (await (await upload(PNG, 'image/png')).json()) as { id: string; path: string }
    const before = input().length
    const r = await send({ pane: 'w1:p1', text: 'what is on this screenshot?\n', attachments: [a.id] })
    expect([r.status, await r.json()]).toEqual([200, { sent: true }])
    expect(input().slice(before)).toEqual([
      ['pane', 'send-input', 'w1:p1', a.path],
      ['pane', 'send-text', 'w1:p1', 'what is on this screenshot?'],
      ['pane', 'send-keys', 'w1:p1', 'enter'],
    ])
    expect(await (await b.get('/agent-state?pane=w1:p1')).text()).toContain('[Image #1]')
  })

  test('pi: no paste; the path goes into the message, on its line', async () => {
    const a = (await (await upload(PNG, 'image/png', phone.token, 'w1:p2')).json()) as { id: string; path: string }
    const before = input().length
    expect((await send({ pane: 'w1:p2', text: 'look at this\n', attachments: [a.id] })).status).toBe(200)
    expect(input().slice(before)).toEqual([
      ['pane', 'send-text', 'w1:p2', `look at this (Image: ${a.path})`],
      ['pane', 'send-keys', 'w1:p2', 'enter'],
    ])
  })

  test('opencode takes a PDF by its pasted path', async () => {
    const a = (await (await upload(PDF, 'application/pdf', phone.token, 'w1:p3')).json()) as { id: string; path: string }
    const before = input().length
    expect((await send({ pane: 'w1:p3', text: 'summarize\n', attachments: [a.id] })).status).toBe(200)
    expect(input().slice(before)[0]).toEqual(['pane', 'send-input', 'w1:p3', a.path])
  })

  test('a shell pane takes no attachments (409, the pane is there), a plain /send to it is typed; a pane that is not there stays 404', async () => {
    const mine = (await (await upload(PNG, 'image/png')).json()) as { id: string }
    const before = input().length
    const r = await send({ pane: 'w1:p5', text: 'ls\n', attachments: [mine.id] })
    expect([r.status, await r.text()]).toEqual([409, 'a shell takes no attachments'])
    const gone = await send({ pane: 'w1:p9', text: 'ls\n', attachments: [mine.id] })
    expect([gone.status, await gone.text()]).toEqual([404, 'no such pane'])
    expect(input().length).toBe(before)
    const plain = await send({ pane: 'w1:p5', text: 'ls\n' })
    expect([plain.status, await plain.json()]).toEqual([200, { sent: true }])
    expect(input().slice(before)).toEqual([
      ['pane', 'send-text', 'w1:p5', 'ls'],
      ['pane', 'send-keys', 'w1:p5', 'enter'],
    ])
  })

  test("refused: an unknown id, another device's, an agent at work; nothing typed", async () => {
    const mine = (await (await upload(PNG, 'image/png')).json()) as { id: string }
    const before = input().length
    const cases: [Response, number, string][] = [
      [await send({ pane: 'w1:p1', text: 'x\n', attachments: ['0'.repeat(32)] }), 404, 'no such attachment'],
      [await send({ pane: 'w1:p1', text: 'x\n', attachments: ['../../etc/passwd'] }), 404, 'no such attachment'],
      [await send({ pane: 'w1:p1', text: 'x\n', attachments: [mine.id] }, other.token), 404, 'no such attachment'],
      [await send({ pane: 'w1:p4', text: 'x\n', attachments: [mine.id] }), 409, 'agent is busy'],
    ]
    for (const [r, status, text] of cases) expect([r.status, await r.text()]).toEqual([status, text])
    expect(input().length).toBe(before)
    // the uploads are in the audit log, with what they were
    const rows = ((await b.json('/audit?limit=50')) as { rows: { action: string; detail: { mime?: string } }[] }).rows
    expect(rows.filter((x) => x.action === 'attach').map((x) => x.detail.mime)).toContain('application/pdf')
  })
})

test('files older than 7 days are removed, with their rows; partial files too', () => {
  let now = Date.UTC(2026, 0, 1)
  const d = tempDir('gothalo-att-')
  const store = createAttachmentStore(join(d, 'attachments'), join(d, 'g.db'), () => now)
  const old = store.save('dev', 'image/png', PNG)
  now += 6 * 24 * 3600_000
  const fresh = store.save('dev', 'image/png', PNG)
  Bun.write(join(d, 'attachments', 'cut.png.part'), 'half')
  now += 2 * 24 * 3600_000
  expect(store.get(old.id, 'dev')).toBeUndefined()
  expect(store.prune()).toBe(1)
  expect(readdirSync(join(d, 'attachments')).sort()).toEqual([`${fresh.id}.png`])
  expect(store.get(fresh.id, 'dev')?.path).toBe(fresh.path)
  store.close()
})

test('the placeholders real Claude Code 2.1.332 shows are counted: a pasted image is, a typed path and a pasted PDF are not', () => {
  const screen = (f: string) => readFileSync(join(ROOT, 'fixtures/screens/cc332-attach', `${f}.txt`), 'utf8')
  // the conversation above the input already holds one from the earlier turn in the later screens
  expect(placeholders(screen('paste-png'))).toBe(1)
  expect(placeholders(screen('after-png'))).toBe(2)
  expect(placeholders(screen('typed-png'))).toBe(placeholders(screen('after-png')))
  expect(placeholders(screen('paste-pdf'))).toBe(placeholders(screen('after-png')))
  expect(pastes('claude', { mime: 'application/pdf' } as Attachment)).toBe(false)
  expect(pastes('claude', { mime: 'image/png' } as Attachment)).toBe(true)
})
