// The API documents and their viewer: GET /swagger (the Scalar UI, embedded in
// the binary: no request leaves for another host, no web font, a favicon),
// GET /swagger/json (OpenAPI 3.1, cleaned from what @elysiajs/swagger
// generates), GET /asyncapi.json (the WebSocket protocols).
import { Elysia } from 'elysia'
import scalarJs from '../../assets/scalar-standalone.js' with { type: 'file' }
import favicon from '../../assets/favicon.svg' with { type: 'file' }
import { asyncApiDocument } from './asyncapi'
import { cleanOpenApi } from './openapi'
import { publicRoute } from '../auth/scopes'

/** Where the generator plugin serves its raw document; only the bridge itself reads it. */
export const GENERATED_SPEC = '/swagger/generated.json'
export const GENERATED_UI = '/swagger/generated'
/** Marks the bridge's own request for the generated document. */
export const INTERNAL_HEADER = 'x-gothalo-internal'

const TITLE = 'gothalo bridge API'

/** Scalar, configured to load nothing from elsewhere: no default web fonts, no proxy, no telemetry. */
function page(): string {
  const config = {
    spec: { url: '/swagger/json' },
    withDefaultFonts: false,
    hideClientButton: true,
    telemetry: false,
    customCss: `:root { --scalar-font: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  --scalar-font-code: ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace; }`,
  }
  // JSON inside a single-quoted HTML attribute: escape what could end it.
  const attr = JSON.stringify(config).replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/</g, '&lt;')
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${TITLE}</title>
    <link rel="icon" type="image/svg+xml" href="/favicon.svg" />
    <style>body { margin: 0; }</style>
  </head>
  <body>
    <script id="api-reference" data-url="/swagger/json" data-configuration='${attr}'></script>
    <script src="/swagger/scalar.js"></script>
  </body>
</html>
`
}

const file = (path: unknown, type: string) => () => new Response(Bun.file(path as string), { headers: { 'content-type': type, 'cache-control': 'no-cache' } })

export function apiDocRoutes(opts: { version: string; generated: () => Promise<unknown> }) {
  let cleaned: Promise<unknown> | undefined
  const html = page()
  return new Elysia({ name: 'api-docs' })
    .get('/swagger', () => new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } }), { detail: publicRoute({ hide: true }) })
    .get(
      '/swagger/json',
      // Routes do not change after start: clean once.
      () => (cleaned ??= opts.generated().then(cleanOpenApi)).catch((e) => ((cleaned = undefined), Promise.reject(e))),
      { detail: publicRoute({ hide: true }) },
    )
    .get('/swagger/scalar.js', file(scalarJs, 'text/javascript; charset=utf-8'), { detail: publicRoute({ hide: true }) })
    .get('/favicon.svg', file(favicon, 'image/svg+xml'), { detail: publicRoute({ hide: true }) })
    .get('/favicon.ico', file(favicon, 'image/svg+xml'), { detail: publicRoute({ hide: true }) })
    .get('/asyncapi.json', ({ request }) => asyncApiDocument({ version: opts.version, host: request.headers.get('host') ?? '127.0.0.1:8787' }), {
      detail: publicRoute({ hide: true }),
    })
}
