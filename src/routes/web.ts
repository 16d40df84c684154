// GET / — the phone client (web/, built into assets/web/ by `npm run build:web`).
// Every asset is embedded in the binary (`with { type: 'file' }`), nothing comes
// from another host, and the page's CSP says so to the browser too. No auth: the
// app holds the device token and sends it with every API call.
import { Elysia } from 'elysia'
import indexHtml from '../../assets/web/index.html' with { type: 'file' }
import appJs from '../../assets/web/app.js' with { type: 'file' }
import appCss from '../../assets/web/app.css' with { type: 'file' }
import swJs from '../../assets/web/sw.js' with { type: 'file' }
import manifest from '../../assets/web/manifest.webmanifest' with { type: 'file' }
import iconSvg from '../../assets/web/icon.svg' with { type: 'file' }
import icon192 from '../../assets/web/icon-192.png' with { type: 'file' }
import icon512 from '../../assets/web/icon-512.png' with { type: 'file' }
import { publicRoute } from '../auth/scopes'

const CSP = [
  "default-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'", // xterm.js positions its rows with style attributes
  "script-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const ASSETS: Record<string, { file: unknown; type: string }> = {
  '/': { file: indexHtml, type: 'text/html; charset=utf-8' },
  '/app.js': { file: appJs, type: 'text/javascript; charset=utf-8' },
  '/app.css': { file: appCss, type: 'text/css; charset=utf-8' },
  '/sw.js': { file: swJs, type: 'text/javascript; charset=utf-8' },
  '/manifest.webmanifest': { file: manifest, type: 'application/manifest+json' },
  '/icon.svg': { file: iconSvg, type: 'image/svg+xml' },
  '/icon-192.png': { file: icon192, type: 'image/png' },
  '/icon-512.png': { file: icon512, type: 'image/png' },
}

export function webRoutes() {
  const app = new Elysia({ name: 'web' })
  for (const [path, a] of Object.entries(ASSETS)) {
    app.get(
      path,
      () =>
        new Response(Bun.file(a.file as string), {
          headers: {
            'content-type': a.type,
            // Always revalidate: a new bridge version must bring its own app at once.
            'cache-control': 'no-cache',
            'x-content-type-options': 'nosniff',
            ...(path === '/' ? { 'content-security-policy': CSP, 'referrer-policy': 'no-referrer' } : {}),
            ...(path === '/sw.js' ? { 'service-worker-allowed': '/' } : {}),
          },
        }),
      { detail: publicRoute({ hide: true }) },
    )
  }
  return app
}
