// The bridge's own HTTPS in real Chromium: with the certificate trusted (a local
// CA's leaf for 127.0.0.1, pinned by its key's hash as a browser admin would), the
// app's origin is a secure context, its service worker installs and notifications
// are offered; the sockets run over WSS.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createHash, createPublicKey } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import { chromiumPath } from '../support/browser'
import { bridgeUrlIn, tempDir, waitFor } from '../support/harness'

const MAIN = resolve(import.meta.dir, '../../src/main.ts')
const dir = tempDir('gothalo-tls-web-')
let browser: Browser
let bridge: Bun.Subprocess
let url = ''
let admin = ''

function openssl(...args: string[]) {
  const r = Bun.spawnSync(['openssl', ...args], { cwd: dir })
  if (r.exitCode !== 0) throw new Error(`these tests need openssl: apt-get install -y openssl (${r.stderr.toString().slice(0, 300)})`)
}

beforeAll(async () => {
  // a local CA, and a leaf for 127.0.0.1 signed by it
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=gothalo test CA', '-keyout', 'ca.key', '-out', 'ca.crt')
  writeFileSync(join(dir, 'leaf.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n')
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', 'leaf.key', '-out', 'leaf.csr')
  openssl('x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'leaf.ext', '-out', 'leaf.crt')
  const spki = createPublicKey(readFileSync(join(dir, 'leaf.crt'))).export({ type: 'spki', format: 'der' })
  const pin = createHash('sha256').update(spki).digest('base64')
  const data = join(dir, 'data')
  bridge = Bun.spawn(
    [
      process.execPath,
      MAIN,
      '--port',
      '0',
      '--data-dir',
      data,
      '--herdr',
      '/nonexistent',
      '--tls-cert',
      join(dir, 'leaf.crt'),
      '--tls-key',
      join(dir, 'leaf.key'),
    ],
    {
      env: { ...process.env, GOTHALO_DATA_DIR: undefined, GOTHALO_ADMIN_TOKEN: 'tls-web-admin', HOME: tempDir('gothalo-tls-web-home-') },
      stdout: 'ignore',
      stderr: 'ignore',
    },
  )
  admin = 'tls-web-admin'
  url = await bridgeUrlIn(data)
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ['--no-sandbox', '--disable-dev-shm-usage', `--ignore-certificate-errors-spki-list=${pin}`],
  })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  bridge?.kill()
})

test("over the bridge's own HTTPS: a secure context, the worker installed, notifications offered, the list live over WSS", async () => {
  expect(url).toStartWith('https://127.0.0.1:')
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, serviceWorkers: 'allow' })
  try {
    await ctx.addInitScript((t) => localStorage.setItem('gothalo.token', t), admin)
    const page = await ctx.newPage()
    const sockets: string[] = []
    page.on('websocket', (ws) => sockets.push(ws.url()))
    await page.goto(`${url}/#/`)
    await page.getByRole('heading', { name: 'Agents' }).waitFor()
    expect(await page.evaluate(() => (globalThis as unknown as { isSecureContext: boolean }).isSecureContext)).toBe(true)
    const worker = await page.evaluate(async () => {
      const sw = (navigator as unknown as { serviceWorker: { ready: Promise<{ active: { scriptURL: string } | null }> } }).serviceWorker
      return (await sw.ready).active?.scriptURL
    })
    expect(worker).toBe(`${url}/sw.js`)
    // the switch is offered (this bridge sends pushes); no insecure-origin note
    await page.locator('label.notify').waitFor()
    expect(await page.getByRole('note').count()).toBe(0)
    await waitFor(() => sockets.some((s) => s.startsWith(`${url.replace('https', 'wss')}/events`)), 10_000, 'the list over WSS')
  } finally {
    await ctx.close()
  }
})
