// Builds the phone client (web/) into assets/web/, which the bridge serves at /
// and `bun build --compile` embeds. The output is committed so a clone serves the
// app without a build step; test/web/bundle.test.ts fails when it is stale.
//   bun scripts/build-web.ts            write assets/web/
//   bun scripts/build-web.ts --check    exit 1 if assets/web/ differs from a fresh build
import { mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '..')
const OUT = join(ROOT, 'assets/web')
const PUBLIC = join(ROOT, 'web/public')

/** The app's files as they would be written: name → bytes. */
export async function buildWeb(): Promise<Map<string, Uint8Array>> {
  const r = await Bun.build({
    entrypoints: [join(ROOT, 'web/src/main.tsx')],
    target: 'browser',
    format: 'esm',
    minify: true,
    sourcemap: 'none',
    naming: { entry: 'app.[ext]', asset: '[name].[ext]' },
    define: { 'process.env.NODE_ENV': '"production"' },
  })
  if (!r.success) throw new AggregateError(r.logs, 'web build failed')
  const files = new Map<string, Uint8Array>()
  for (const o of r.outputs) {
    const name = o.path.replace(/^.*\//, '').replace(/^main\./, 'app.')
    files.set(name, new Uint8Array(await o.arrayBuffer()))
  }
  for (const f of readdirSync(PUBLIC)) files.set(f, readFileSync(join(PUBLIC, f)))
  return files
}

if (import.meta.main) {
  const files = await buildWeb()
  if (process.argv.includes('--check')) {
    const stale = [...files].filter(([n, b]) => !existsSync(join(OUT, n)) || Buffer.compare(readFileSync(join(OUT, n)), b) !== 0).map(([n]) => n)
    const extra = existsSync(OUT) ? readdirSync(OUT).filter((n) => !files.has(n)) : []
    if (stale.length || extra.length) {
      console.error(`assets/web is stale (${[...stale, ...extra].join(', ')}): run npm run build:web`)
      process.exit(1)
    }
    console.log('assets/web is up to date')
  } else {
    rmSync(OUT, { recursive: true, force: true })
    mkdirSync(OUT, { recursive: true })
    for (const [n, b] of files) writeFileSync(join(OUT, n), b)
    console.log(`assets/web: ${[...files.keys()].join(', ')}`)
  }
}
