// `gothalo machines add|list|remove|import`: pairing with a real remote bridge
// (the harness's app on loopback), the token kept 0600 and never printed, and
// each bad input one line with a non-zero exit and nothing stored.
import { afterEach, expect, test } from 'bun:test'
import { existsSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { runMachinesCommand } from '../../src/cli/machines'
import { parseSettings } from '../../src/cli/config'
import { machinesPath, readMachines } from '../../src/machines/store'
import { startBridge, tempDir, type Bridge } from '../support/harness'

const dirs: string[] = []
let remote: Bridge | undefined
afterEach(async () => {
  await remote?.stop()
  remote = undefined
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function dataDir(): string {
  const d = tempDir('gothalo-machines-')
  dirs.push(d)
  return join(d, 'data')
}

async function machines(dir: string, argv: string[], herdrMachines?: () => Promise<string>) {
  const lines: string[] = []
  const code = await runMachinesCommand(parseSettings(['machines', ...argv, '--data-dir', dir], { HOME: '/nonexistent' }), (l) => lines.push(l), {
    herdrMachines,
    clock: () => Date.UTC(2026, 11, 6, 1, 2, 3),
  })
  return { code, lines }
}

async function codeAt(b: Bridge, scopes?: string[]): Promise<string> {
  return ((await (await b.post('/pair/code', scopes ? { scopes } : {})).json()) as { code: string }).code
}

test('add pairs with the remote, stores its token 0600 (never printed); list and remove; the remote lists the home as a device', async () => {
  remote = await startBridge()
  const dir = dataDir()
  const added = await machines(dir, ['add', 'laptop', remote.base, '--code', await codeAt(remote, ['read', 'answer'])])
  expect(added).toEqual({ code: 0, lines: [`added laptop (${remote.base}); a running bridge picks it up within seconds`] })
  const stored = readMachines(dir)
  expect(stored.map((m) => [m.label, m.target])).toEqual([['laptop', remote.base]])
  expect(statSync(machinesPath(dir)).mode & 0o777).toBe(0o600)
  expect(statSync(dir).mode & 0o777).toBe(0o700)
  // the token works at the remote, with the scopes its code gave
  const me = await remote.json('/devices/me', stored[0].token)
  expect(me).toMatchObject({ device_id: stored[0].device_id, scopes: ['read', 'answer'] })
  expect(me.name).toStartWith('gothalo bridge on ')

  const listed = await machines(dir, ['list'])
  expect(listed).toEqual({ code: 0, lines: [`laptop  ${remote.base}  added 2026-12-06 01:02:03Z`] })
  expect(listed.lines.join('\n')).not.toContain(stored[0].token)
  expect((await machines(dir, [])).lines).toEqual(listed.lines)

  // a taken label: one line, nothing changes (and the code is not spent)
  const code2 = await codeAt(remote)
  expect(await machines(dir, ['add', 'laptop', remote.base, '--code', code2])).toEqual({
    code: 1,
    lines: ['label taken: laptop (gothalo machines remove laptop first)'],
  })
  expect(readMachines(dir)).toEqual(stored)

  expect(await machines(dir, ['remove', 'laptop'])).toEqual({
    code: 0,
    lines: ['removed laptop (its device stays paired at the remote until revoked there: gothalo devices revoke)'],
  })
  expect(readMachines(dir)).toEqual([])
  expect(await machines(dir, ['remove', 'laptop'])).toEqual({ code: 1, lines: ['no such machine: laptop'] })
})

test('a wrong or spent code: one line, exit 1, nothing stored', async () => {
  remote = await startBridge()
  const dir = dataDir()
  const wrong = await machines(dir, ['add', 'laptop', remote.base, '--code', 'AAAA-BBBB'])
  expect(wrong.code).toBe(1)
  expect(wrong.lines).toEqual(['the remote bridge refused the code: invalid or expired code (make one there: gothalo pair)'])
  expect(existsSync(machinesPath(dir))).toBe(false)
  const code = await codeAt(remote)
  expect((await machines(dir, ['add', 'a', remote.base, '--code', code])).code).toBe(0)
  const spent = await machines(dir, ['add', 'b', remote.base, '--code', code])
  expect(spent.code).toBe(1)
  expect(spent.lines).toHaveLength(1)
  expect(readMachines(dir).map((m) => m.label)).toEqual(['a'])
})

test('a "remote" that answers the pairing without end: one line, exit 1, nothing stored, no more than 4 KiB read of it', async () => {
  let pulled = 0
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: () =>
      new Response(
        new ReadableStream({
          pull(c) {
            pulled++
            c.enqueue(new TextEncoder().encode('{"device_id":"x","token":"'.padEnd(64 * 1024, 'y')))
          },
        }),
        { headers: { 'content-type': 'application/json' } },
      ),
  })
  try {
    const dir = dataDir()
    const r = await machines(dir, ['add', 'odd', `http://127.0.0.1:${server.port}`, '--code', 'AAAA-BBBB'])
    expect(r).toEqual({ code: 1, lines: [`the remote at http://127.0.0.1:${server.port} does not answer like a gothalo bridge`] })
    expect(existsSync(machinesPath(dir))).toBe(false)
    // it was not read to its end (it has none): what the sockets between held, at most
    expect(pulled).toBeLessThan(1000)
  } finally {
    server.stop(true)
  }
})

test.each([
  [['add', 'Laptop', 'http://127.0.0.1:1', '--code', 'X'], 'bad label: "Laptop" (want ^[a-z0-9][a-z0-9-]{0,31}$, e.g. laptop)'],
  [['add', 'x_y', 'http://127.0.0.1:1', '--code', 'X'], 'bad label: "x_y" (want ^[a-z0-9][a-z0-9-]{0,31}$, e.g. laptop)'],
  [['add', 'a'.repeat(33), 'http://127.0.0.1:1', '--code', 'X'], `bad label: "${'a'.repeat(33)}" (want ^[a-z0-9][a-z0-9-]{0,31}$, e.g. laptop)`],
  [['add', 'a/b', 'http://127.0.0.1:1', '--code', 'X'], 'bad label: "a/b" (want ^[a-z0-9][a-z0-9-]{0,31}$, e.g. laptop)'],
  [['add', 'local', 'http://127.0.0.1:1', '--code', 'X'], "bad label: local is the home machine's id"],
  [
    ['add', 'box', 'http://10.0.0.5:8787', '--code', 'X'],
    'bad target: http://10.0.0.5:8787 (http:// only on a loopback address; use https:// or ssh:// across machines)',
  ],
  [['add', 'box', 'ftp://host', '--code', 'X'], 'bad target: ftp://host (want ssh://, https:// or http:// on a loopback address)'],
  [['add', 'box', 'ssh://-oProxyCommand=x', '--code', 'X'], 'bad target: bad ssh host in ssh://-oProxyCommand=x'],
  [['add', 'box', 'https://u:p@host', '--code', 'X'], 'bad target: no password in a target (ssh keys or an agent authenticate)'],
  [['add', 'box', 'ssh://host:0', '--code', 'X'], 'bad target: ssh://host:0 (port 0 is no port)'],
  [['add', 'box', 'https://host:0', '--code', 'X'], 'bad target: https://host:0 (port 0 is no port)'],
  [['add', 'box', 'http://127.0.0.1:1'], 'machines add needs --code CODE (run `gothalo pair` on the remote machine)'],
  [['add', 'box', 'http://127.0.0.1:1', '--code', 'X'], expect.stringMatching(/^cannot reach the remote bridge at http:\/\/127\.0\.0\.1:1: /)],
])('bad input %j: one line, exit 1, nothing stored', async (argv, line) => {
  const dir = dataDir()
  expect(await machines(dir, argv as string[])).toEqual({ code: 1, lines: [line as string] })
  expect(existsSync(machinesPath(dir))).toBe(false)
})

test("import offers herdr's saved machines as add commands (labels made valid, disabled and taken ones left out)", async () => {
  const dir = dataDir()
  const list = JSON.stringify([
    { id: '0'.repeat(32), label: 'Build Box', target: 'dev@build', session: 'default', enabled: true, selected: false },
    { id: '1'.repeat(32), label: 'off', target: 'me@off', session: 'default', enabled: false, selected: false },
    { id: '2'.repeat(32), label: 'mac', target: 'mac.local', session: 'default', enabled: true, selected: true },
  ])
  expect(await machines(dir, ['import'], async () => list)).toEqual({
    code: 0,
    lines: [
      'gothalo machines add build-box ssh://dev@build --code CODE   # CODE: run `gothalo pair` on that machine',
      'gothalo machines add mac ssh://mac.local --code CODE   # CODE: run `gothalo pair` on that machine',
    ],
  })
  expect(await machines(dir, ['import'], async () => '[]')).toEqual({ code: 0, lines: ['no saved herdr machines to add'] })
  const failed = await machines(dir, ['import'], async () => {
    throw new Error('herdr: not found')
  })
  expect(failed).toEqual({ code: 1, lines: ['herdr machine list --json: herdr: not found'] })
  expect(existsSync(machinesPath(dir))).toBe(false)
})
