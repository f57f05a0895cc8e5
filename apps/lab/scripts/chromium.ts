/**
 * Chromium as the lab's measuring scripts run it: headless, with nothing of its own on the network
 * (they run inside a loopback-only namespace), and the browser test's window size.
 */
import { findChromium } from '@sd/visualizer/test/support/browser.js'
import { type Browser, type BrowserContext, chromium } from 'playwright-core'

export async function launchChromium(): Promise<{ browser: Browser; context: BrowserContext }> {
  const path = findChromium()
  if (path === undefined) throw new Error('no Chromium found: apt-get install -y chromium')
  const browser = await chromium.launch({
    executablePath: path,
    headless: true,
    args: ['--no-first-run', '--disable-component-update', '--disable-background-networking'],
  })
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  return { browser, context }
}
