// npm run screenshots: the README's pictures, taken with headless Chromium
// (apt-get install -y chromium) from a real `gothalo --demo`:
//   docs/images/swagger-ui.png   the Swagger UI (/swagger)
//   docs/images/demo-list.png    the phone app (GET /) paired with the demo: every pane
//   docs/images/demo-agent.png   the blocked agent: its card and its conversation
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { launchChromium } from '../test/support/browser'

const ROOT = resolve(import.meta.dir, '..')
const OUT = join(ROOT, 'docs', 'images')

const dataDir = mkdtempSync(join(tmpdir(), 'gothalo-shots-'))
const bridge = Bun.spawn([process.execPath, join(ROOT, 'src/main.ts'), '--demo', '--port', '0', '--data-dir', dataDir], {
  stdout: 'pipe',
  stderr: 'ignore',
})
try {
  let out = ''
  const dec = new TextDecoder()
  const reader = bridge.stdout.getReader()
  while (!/admin token: \S+/.test(out) || !/listening on \S+/.test(out)) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`the demo exited: ${out}`)
    out += dec.decode(value)
  }
  const base = /listening on (\S+)/.exec(out)![1]
  const token = /admin token: (\S+)/.exec(out)![1]
  mkdirSync(OUT, { recursive: true })
  const browser = await launchChromium()
  try {
    const desk = await browser.newPage({ viewport: { width: 1280, height: 860 } })
    await desk.goto(`${base}/swagger`)
    await desk.getByText('/healthz').first().waitFor({ timeout: 20_000 })
    await desk.screenshot({ path: join(OUT, 'swagger-ui.png') })

    const { code } = (await (await fetch(`${base}/pair/code`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })).json()) as { code: string }
    const phone = await browser.newPage({ viewport: { width: 390, height: 780 }, deviceScaleFactor: 1 })
    await phone.goto(`${base}/#pair=${code}`)
    await phone.getByText('Do you want to proceed?').first().waitFor({ timeout: 20_000 })
    await phone.screenshot({ path: join(OUT, 'demo-list.png') })
    await phone.getByText('Do you want to proceed?').first().click()
    await phone.waitForTimeout(3000) // the card and the transcript's newest page
    await phone.screenshot({ path: join(OUT, 'demo-agent.png') })
  } finally {
    await browser.close()
  }
  console.log(`wrote ${['swagger-ui.png', 'demo-list.png', 'demo-agent.png'].map((f) => join('docs/images', f)).join(', ')}`)
} finally {
  bridge.kill()
  await bridge.exited
  rmSync(dataDir, { recursive: true, force: true })
}
