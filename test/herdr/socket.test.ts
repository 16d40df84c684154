// herdr's socket API as the bridge reads it: one request per connection, one reply
// line. A reply that is not herdr's envelope (a bare value, an error that is not
// {code, message}) is bad_output, an error the caller can handle, never a throw
// from inside the socket's data handler.
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HerdrSocketError, socketRequest } from '../../src/herdr/socket'

const dir = mkdtempSync(join(tmpdir(), 'gothalo-herdr-socket-'))
const servers: Server[] = []
afterAll(() => {
  for (const s of servers) s.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A herdr socket that answers every request with `line`. */
async function replying(line: string): Promise<string> {
  const path = join(dir, `s${servers.length}.sock`)
  const server = createServer((c) => c.once('data', () => c.end(`${line}\n`)))
  servers.push(server)
  await new Promise<void>((res) => server.listen(path, res))
  return path
}

const outcome = (p: Promise<unknown>) =>
  p.then(
    (value) => ({ value }),
    (e: unknown) => ({ error: e instanceof HerdrSocketError ? e.code : `not a HerdrSocketError: ${e}` }),
  )

test.each([
  ['null', 'null'],
  ['a number', '42'],
  ['a string', '"pane.list"'],
  ['an array', '[{"result":1}]'],
  ['an error that is a string', '{"error":"boom"}'],
  ['an error without a string code', '{"error":{"code":7,"message":"m"}}'],
  ['an error without a message', '{"error":{"code":"pane_not_found"}}'],
  ['neither result nor error', '{"id":"x"}'],
])('a reply that is %s is bad_output', async (_name, line) => {
  expect(await outcome(socketRequest(await replying(line), 'pane.list', {}, 2000))).toEqual({ error: 'bad_output' })
})

test("herdr's error is its own code; a result is handed back", async () => {
  expect(await outcome(socketRequest(await replying('{"id":"x","error":{"code":"pane_not_found","message":"no such pane"}}'), 'pane.get', {}, 2000))).toEqual({
    error: 'pane_not_found',
  })
  expect(await outcome(socketRequest(await replying('{"id":"x","result":{"panes":[]}}'), 'pane.list', {}, 2000))).toEqual({ value: { panes: [] } })
  expect(await outcome(socketRequest(await replying('{"id":"x","result":{"panes":[]},"error":null}'), 'pane.list', {}, 2000))).toEqual({ value: { panes: [] } })
})
