// Headless Chromium for tests that look at a page as a person would. The
// browser is Debian's (`apt-get install -y chromium`); CHROMIUM names another.
import { existsSync } from 'node:fs'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'

export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean) as string[]
  const found = candidates.find((p) => existsSync(p))
  if (!found) throw new Error('these tests need Chromium: apt-get install -y chromium (or set CHROMIUM=/path/to/chrome)')
  return found
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-dev-shm-usage'] })
}

/**
 * Closes a phone's context after stilling its page: listeners off, then a blank page, so no request,
 * socket or worker fetch of the app is in flight as the context goes (Playwright can fail on a
 * network event that races a page's teardown, microsoft/playwright#22210).
 */
export async function closePhone(p: { page: Page; ctx: BrowserContext }): Promise<void> {
  p.page.removeAllListeners()
  try {
    await p.page.goto('about:blank')
  } finally {
    await p.ctx.close()
  }
}

/**
 * A phone (390×844, touch) signed in with `token`, its service worker blocked,
 * collecting the page's uncaught errors: what most screen tests start from.
 */
export async function openPhone(browser: Browser, token: string): Promise<{ ctx: BrowserContext; page: Page; errors: string[] }> {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, serviceWorkers: 'block' })
  await ctx.addInitScript((t) => localStorage.setItem('gothalo.token', t), token)
  const page = await ctx.newPage()
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  return { ctx, page, errors }
}
