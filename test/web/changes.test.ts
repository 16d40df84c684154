// The Changes view in Debian's Chromium at a phone's size: from an agent's
// screen to its repository's changed files, a file's diff, and its full text.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { launchChromium, openPhone } from '../support/browser'
import { ADMIN, ROOT, claudePane, pairDevice, startBridge, tempDir, type Bridge } from '../support/harness'

let browser: Browser
let b: Bridge
let repo: string

function g(cwd: string, ...args: string[]) {
  const r = Bun.spawnSync(['git', '-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  })
  if (r.exitCode !== 0) throw new Error(r.stderr.toString())
}

beforeAll(async () => {
  browser = await launchChromium()
  repo = join(tempDir('gothalo-changes-web-'), 'shop')
  mkdirSync(join(repo, 'src'), { recursive: true })
  g(repo, 'init', '-q')
  writeFileSync(join(repo, 'src/cart.ts'), 'export function total(items) {\n  return items.reduce((a, i) => a + i.price, 0)\n}\n')
  g(repo, 'add', '-A')
  g(repo, 'commit', '-qm', 'cart')
  writeFileSync(
    join(repo, 'src/cart.ts'),
    'export function total(items) {\n  // prices are in cents: never add floats\n  return items.reduce((a, i) => a + Math.round(i.price * 100), 0)\n}\n',
  )
  writeFileSync(join(repo, 'NOTES.md'), 'new file\n')
  writeFileSync(join(repo, '.gitignore'), '.env\n')
  writeFileSync(join(repo, '.env'), 'TOKEN=not-for-the-phone\n')
  b = await startBridge({
    state: {
      panes: [
        claudePane({
          pane_id: 'w1:p1',
          cwd: repo,
          screen_file: join(ROOT, 'fixtures/screens-bridge/mode-default.txt'),
          agent: { agent_status: 'done', state_change_seq: 2 },
        }),
      ],
    },
  })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await b?.stop()
})

test('from the agent: the changed files with +/−, a numbered coloured diff, the full file', async () => {
  setDefaultTimeout(60_000)
  const { ctx, page, errors } = await openPhone(browser, ADMIN)
  try {
    await page.goto(`${b.base}/#/p/${encodeURIComponent('w1:p1')}`)
    await page.getByRole('link', { name: 'changes' }).click()
    await page.getByRole('heading', { name: 'Changes' }).waitFor()
    await page.locator('.branch code', { hasText: 'main' }).waitFor()
    const rows = page.locator('li.change')
    await rows.first().waitFor()
    expect(await rows.allInnerTexts()).toEqual(['M\nsrc/cart.ts\n+2 −1', 'U\n.gitignore\n+1 −0', 'U\nNOTES.md\n+1 −0'])
    await page.locator('li.change', { hasText: 'src/cart.ts' }).click()
    await page.locator('.hunk-header').waitFor()
    const added = await page.locator('tr.add').allInnerTexts()
    expect(added.map((t) => t.replace(/\s+/g, ' ').trim())).toEqual([
      '2 + // prices are in cents: never add floats',
      '3 + return items.reduce((a, i) => a + Math.round(i.price * 100), 0)',
    ])
    expect(((await page.locator('tr.del').textContent()) ?? '').replace(/\s+/g, ' ').trim()).toBe('2- return items.reduce((a, i) => a + i.price, 0)')
    // long lines wrap inside the phone's width
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth + 1)).toBe(true)
    if (process.env.GOTHALO_SHOTS) await page.screenshot({ path: join(process.env.GOTHALO_SHOTS, 'diff.png') })
    await page.getByRole('link', { name: 'full file' }).click()
    await page.locator('.file-view table.lines').waitFor()
    expect(await page.locator('.file-view tr').count()).toBe(4)
    expect(errors).toEqual([])
  } finally {
    await ctx.close()
  }
})

test('the files: what git ignores is listed as ignored, not a link', async () => {
  const { ctx, page, errors } = await openPhone(browser, ADMIN)
  try {
    await page.goto(`${b.base}/#/p/${encodeURIComponent('w1:p1')}/file/`)
    await page.locator('ul.files li').first().waitFor()
    expect(await page.locator('ul.files a.file-link').allInnerTexts()).toEqual(['📄 .gitignore', '📄 NOTES.md', '📁 src'])
    expect(((await page.locator('ul.files span.file-link').textContent()) ?? '').replace(/\s+/g, ' ')).toBe('📄 .env ignored')
    expect(errors).toEqual([])
  } finally {
    await ctx.close()
  }
})

test('a device without the code scope sees no review screens and asks nothing of them; one with it does', async () => {
  const viewer = await pairDevice(b, 'viewer', ['read'])
  const coder = await pairDevice(b, 'coder', ['read', 'code'])
  for (const [who, token] of [
    ['viewer', viewer.token],
    ['coder', coder.token],
  ] as const) {
    const { ctx, page, errors } = await openPhone(browser, token)
    const asked: string[] = []
    page.on('request', (r) => {
      const u = new URL(r.url())
      if (/^\/(changes|files)/.test(u.pathname)) asked.push(u.pathname)
    })
    try {
      await page.goto(`${b.base}/#/p/${encodeURIComponent('w1:p1')}`)
      await page.locator('main.agent h1').waitFor()
      // the device's scopes known (GET /devices/me answered, kept for the next start)
      await page.waitForFunction(() => (globalThis as any).localStorage.getItem('gothalo.scopes') !== null)
      if (who === 'viewer') {
        expect(await page.getByRole('link', { name: 'changes' }).count()).toBe(0)
        await page.goto(`${b.base}/#/p/${encodeURIComponent('w1:p1')}/changes`)
        await page.getByText('This device may not read the code').waitFor()
        await page.goto(`${b.base}/#/p/${encodeURIComponent('w1:p1')}/file/src/cart.ts`)
        await page.getByText('This device may not read the code').waitFor()
        expect(asked).toEqual([])
      } else {
        await page.getByRole('link', { name: 'changes' }).click()
        await page.locator('li.change').first().waitFor()
        expect(asked).toContain('/changes')
      }
      expect(errors).toEqual([])
    } finally {
      await ctx.close()
    }
  }
})
