import { afterEach, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Ctx } from '../../src/server/ctx'
import { createAuthStore } from '../../src/auth/store'
import { dbPathOf, deviceTable, formatTime, runAdminCommand } from '../../src/cli/admin'
import type { Settings } from '../../src/cli/config'
import { publicPairingRoutes } from '../../src/routes/pairing'
import { DEFAULT_SCOPES } from '../../src/auth/scopes'
import { createAuditLog } from '../../src/audit/log'

const T0 = Date.UTC(2026, 4, 1, 14, 3, 7)
const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function settingsFor(dataDir: string, command: Settings['command'], arg?: string): Settings {
  return { command, arg, args: arg === undefined ? [] : [arg], host: '127.0.0.1', port: 0, herdr: 'herdr', dataDir, demo: false, herdrTimeoutMs: 5000 }
}

async function run(dataDir: string, command: Settings['command'], arg?: string, now = T0) {
  const lines: string[] = []
  const code = await runAdminCommand(settingsFor(dataDir, command, arg), (l) => lines.push(l), { clock: () => now })
  return { code, lines }
}

function tempDataDir() {
  const root = mkdtempSync(join(tmpdir(), 'gothalo-cli-'))
  dirs.push(root)
  return join(root, 'data') // not there yet: the commands create it
}

test('pair without a running bridge prints a code and its expiry, and names the data dir; the data dir is created 0700', async () => {
  const dataDir = tempDataDir()
  const r = await run(dataDir, 'pair')
  expect(r.code).toBe(0)
  expect(r.lines.slice(0, 2)).toEqual([
    expect.stringMatching(/^pairing code: [2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/),
    'expires: 2026-05-01 14:13:07Z (single use, 10 minutes)',
  ])
  expect(r.lines.join('\n')).toContain(`no bridge is running on data dir ${dataDir}`)
  expect(statSync(dataDir).mode & 0o777).toBe(0o700)
})

test('devices lists nothing, then a table; revoke answers 0, then 1 for an unknown id', async () => {
  const dataDir = tempDataDir()
  expect(await run(dataDir, 'devices')).toEqual({ code: 0, lines: ['no paired devices'] })

  const code = (await run(dataDir, 'pair')).lines[0].replace('pairing code: ', '')
  const server = createAuthStore({ dbPath: dbPathOf(dataDir), adminToken: 'server-admin', clock: () => T0 + 5000 })
  const r = server.redeem(code, 'Pixel 9', 'a')
  if (!r.ok) throw new Error('redeem failed')
  server.identify(r.token)

  const listed = await run(dataDir, 'devices')
  expect(listed.code).toBe(0)
  const pad = ' '.repeat(r.device_id.length - 2)
  expect(listed.lines).toEqual([
    `ID${pad}  NAME     CREATED               LAST SEEN             SCOPES`,
    `${r.device_id}  Pixel 9  2026-05-01 14:03:12Z  2026-05-01 14:03:12Z  read,code,answer,type,terminal,start`,
  ])

  const revoked = await run(dataDir, 'devices-revoke', r.device_id)
  expect(revoked).toEqual({ code: 0, lines: [`revoked ${r.device_id}`] })
  expect(server.identify(r.token)).toBeUndefined() // the server's handle sees it at once
  expect(server.syncExternalRevocations()).toEqual([r.device_id])
  expect(await run(dataDir, 'devices')).toEqual({ code: 0, lines: ['no paired devices'] })

  // the revocation from the shell is in the audit log, as the command line's
  const log = createAuditLog(dbPathOf(dataDir))
  expect(log.list().map((x) => [x.device_id, x.action, x.detail, x.status])).toEqual([['cli', 'device.revoke', { device: r.device_id }, 200]])
  log.close()

  expect(await run(dataDir, 'devices-revoke', r.device_id)).toEqual({ code: 1, lines: [`no such device: ${r.device_id}`] })
  expect(await run(dataDir, 'devices-revoke', 'dev_nope')).toEqual({ code: 1, lines: ['no such device: dev_nope'] })
  server.close()
})

test('a code from the CLI is redeemable over HTTP on a separately opened store (two handles, one file)', async () => {
  const dataDir = tempDataDir()
  const code = (await run(dataDir, 'pair', undefined, Date.now())).lines[0].replace('pairing code: ', '')
  const server = createAuthStore({ dbPath: dbPathOf(dataDir), adminToken: 'server-admin' })
  try {
    const ctx = { auth: server, clock: Date.now, log: () => {} } as unknown as Ctx
    const app = new Elysia().use(publicPairingRoutes(ctx))
    const res = await app.handle(
      new Request('http://localhost/pair', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code, device_name: 'phone' }),
      }),
    )
    expect(res.status).toBe(200)
    const { token, device_id } = (await res.json()) as { token: string; device_id: string }
    expect(server.identify(token)).toEqual({ kind: 'device', deviceId: device_id, scopes: [...DEFAULT_SCOPES] })
    const listed = await run(dataDir, 'devices', undefined, Date.now())
    expect(listed.lines[1]).toStartWith(`${device_id}  phone  `)
  } finally {
    server.close()
  }
})

test('a non-admin command is refused with exit 2 and touches nothing', async () => {
  const dataDir = tempDataDir()
  expect(await run(dataDir, 'serve')).toEqual({ code: 2, lines: ['not an admin command: serve'] })
  expect(() => statSync(dataDir)).toThrow()
})

test('pair --scopes read: the code says so, and the device it pairs may only read', async () => {
  const dataDir = tempDataDir()
  const lines: string[] = []
  const code = await runAdminCommand({ ...settingsFor(dataDir, 'pair'), scopes: ['read'] }, (l) => lines.push(l), { clock: () => T0 })
  expect(code).toBe(0)
  expect(lines).toContain('scopes: read (what the paired device may do)')
  const server = createAuthStore({ dbPath: dbPathOf(dataDir), adminToken: 'server-admin', clock: () => T0 })
  const r = server.redeem(lines[0].replace('pairing code: ', ''), 'viewer', 'a')
  if (!r.ok) throw new Error('redeem failed')
  expect(server.identify(r.token)).toEqual({ kind: 'device', deviceId: r.device_id, scopes: ['read'] })
  server.close()
  // without --scopes: the default
  const plain: string[] = []
  await runAdminCommand(settingsFor(dataDir, 'pair'), (l) => plain.push(l), { clock: () => T0 })
  expect(plain).toContain('scopes: read,code,answer,type,terminal,start (what the paired device may do)')
})

test('the table pads by characters and formats missing times as never', () => {
  expect(formatTime(null)).toBe('never')
  expect(
    deviceTable([
      { device_id: 'dev_a', name: 'Ünïcødé', created_at: T0, last_seen_at: null, scopes: ['read'] },
      { device_id: 'dev_bb', name: 'x', created_at: T0, last_seen_at: T0, scopes: [...DEFAULT_SCOPES] },
    ]),
  ).toEqual([
    'ID      NAME     CREATED               LAST SEEN             SCOPES',
    'dev_a   Ünïcødé  2026-05-01 14:03:07Z  never                 read',
    'dev_bb  x        2026-05-01 14:03:07Z  2026-05-01 14:03:07Z  read,code,answer,type,terminal,start',
  ])
})
