// Renders web/public/icon.svg to the PNG icons a PWA install needs (192, 512),
// with Debian's chromium (apt-get install chromium). Run after changing the svg.
import { chromium } from 'playwright-core'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

const PUB = join(resolve(import.meta.dir, '..'), 'web/public')
const svg = readFileSync(join(PUB, 'icon.svg'), 'utf8')
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] })
for (const size of [192, 512]) {
  const page = await browser.newPage({ viewport: { width: size, height: size } })
  await page.setContent(`<style>html,body{margin:0;background:transparent}svg{width:${size}px;height:${size}px;display:block}</style>${svg}`)
  await page.screenshot({ path: join(PUB, `icon-${size}.png`), omitBackground: true })
  await page.close()
}
await browser.close()
