// The phone client is served from assets/web/, built from web/ and committed:
// a change to web/ without `npm run build:web` must fail here, not ship stale.
import { expect, test } from 'bun:test'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { buildWeb } from '../../scripts/build-web'
import { ROOT, startBridge } from '../support/harness'

test('assets/web is exactly what web/ builds to', async () => {
  const fresh = await buildWeb()
  const out = join(ROOT, 'assets/web')
  expect(readdirSync(out).sort()).toEqual([...fresh.keys()].sort())
  for (const [name, bytes] of fresh) {
    expect(existsSync(join(out, name))).toBe(true)
    expect(Buffer.compare(readFileSync(join(out, name)), Buffer.from(bytes)), `${name} is stale: run npm run build:web`).toBe(0)
  }
}, 60_000)

test('GET / serves the app shell without auth, with a CSP that allows only this origin', async () => {
  const b = await startBridge()
  try {
    const r = await b.get('/', null)
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const csp = r.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("default-src 'self'")
    expect(csp).toContain("connect-src 'self'")
    expect(csp).not.toMatch(/https?:\/\//)
    const html = await r.text()
    expect(html).toContain('<script type="module" src="/app.js"></script>')
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//)
    for (const [path, type] of [
      ['/app.js', 'text/javascript; charset=utf-8'],
      ['/app.css', 'text/css; charset=utf-8'],
      ['/sw.js', 'text/javascript; charset=utf-8'],
      ['/manifest.webmanifest', 'application/manifest+json'],
      ['/icon-192.png', 'image/png'],
      ['/icon-512.png', 'image/png'],
    ]) {
      const a = await b.get(path, null)
      expect(a.status, path).toBe(200)
      expect(a.headers.get('content-type'), path).toBe(type)
      expect((await a.arrayBuffer()).byteLength, path).toBeGreaterThan(100)
    }
    const m: any = await (await b.get('/manifest.webmanifest', null)).json()
    expect(m).toMatchObject({ start_url: '/#/', display: 'standalone' })
    expect(m.icons.map((i: any) => i.sizes)).toEqual(['192x192', '512x512', 'any'])
    // The API stays behind auth: serving the app opens nothing else.
    expect((await b.get('/snapshot', null)).status).toBe(401)
  } finally {
    await b.stop()
  }
})
