// Native HTTPS (--tls-cert / --tls-key): a bad pair is one line and exit 1; a good
// one is served; files replaced by rename (as `tailscale cert` and certbot do) are
// served within seconds, without a restart; a broken renewal keeps the old pair.
import { afterAll, expect, test } from 'bun:test'
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import tls from 'node:tls'
import { bridgeUrlIn, tempDir, waitFor } from '../support/harness'

const MAIN = resolve(import.meta.dir, '../../src/main.ts')
const dir = tempDir('gothalo-tls-')

function pair(name: string) {
  const r = Bun.spawnSync([
    'openssl',
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    join(dir, `${name}.key`),
    '-out',
    join(dir, `${name}.crt`),
  ])
  if (r.exitCode !== 0) throw new Error(`these tests need openssl: apt-get install -y openssl (${r.stderr.toString().slice(0, 200)})`)
  return { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) }
}
const A = pair('cert-a')
const B = pair('cert-b')
const running: Bun.Subprocess[] = []
afterAll(() => {
  for (const p of running) p.kill()
})

const env = () => ({ ...process.env, GOTHALO_DATA_DIR: undefined, GOTHALO_ADMIN_TOKEN: undefined, HOME: tempDir('gothalo-tls-home-') })

test("a key that is not the certificate's: one line, exit 1", async () => {
  const p = Bun.spawn(
    [process.execPath, MAIN, '--port', '0', '--data-dir', tempDir('gothalo-tls-data-'), '--herdr', '/nonexistent', '--tls-cert', A.cert, '--tls-key', B.key],
    {
      env: env(),
      stdout: 'pipe',
      stderr: 'pipe',
    },
  )
  const [stderr, code] = await Promise.all([new Response(p.stderr).text(), p.exited])
  expect(code).toBe(1)
  expect(stderr).toBe(`gothalo: cannot start: the TLS key ${B.key} does not belong to the certificate ${A.cert} — run with --log-level debug for details\n`)
})

test('served over HTTPS; a renewal by rename is served within seconds, a broken one is not', async () => {
  const cert = join(dir, 'live.crt')
  const key = join(dir, 'live.key')
  writeFileSync(cert, readFileSync(A.cert))
  writeFileSync(key, readFileSync(A.key))
  const data = tempDir('gothalo-tls-data-')
  let stderr = ''
  const p = Bun.spawn([process.execPath, MAIN, '--port', '0', '--data-dir', data, '--herdr', '/nonexistent', '--tls-cert', cert, '--tls-key', key], {
    env: env(),
    stdout: 'ignore',
    stderr: 'pipe',
  })
  running.push(p)
  void (async () => {
    for await (const c of p.stderr as ReadableStream<Uint8Array>) stderr += Buffer.from(c).toString()
  })()
  const url = await bridgeUrlIn(data)
  expect(url).toStartWith('https://127.0.0.1:')
  const port = Number(new URL(url).port)
  const served = () =>
    new Promise<string>((res, rej) => {
      const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
        res(String(s.getPeerCertificate().subject?.CN))
        s.end()
      })
      s.on('error', rej)
    })
  expect(await served()).toBe('cert-a')
  const health = await fetch(`${url}/healthz`, { tls: { rejectUnauthorized: false } } as RequestInit)
  expect(health.status).toBe(200)

  // renewed as tailscale cert does it: new files renamed over the old
  writeFileSync(`${cert}.tmp`, readFileSync(B.cert))
  writeFileSync(`${key}.tmp`, readFileSync(B.key))
  renameSync(`${key}.tmp`, key)
  renameSync(`${cert}.tmp`, cert)
  await waitFor(async () => (await served().catch(() => '')) === 'cert-b', 10_000, 'the renewed certificate served')

  // a broken renewal: the old pair stays, and the log says why
  writeFileSync(`${cert}.tmp`, 'not a certificate')
  renameSync(`${cert}.tmp`, cert)
  await waitFor(() => stderr.includes('tls renewal not used'), 10_000, 'the warning')
  expect(await served()).toBe('cert-b')
})
