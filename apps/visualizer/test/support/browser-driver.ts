/**
 * Runs inside a loopback-only network namespace (the test starts it through `ip netns exec`):
 * serves the built page and the test's traces on 127.0.0.1, drives Debian's Chromium with
 * playwright-core, and answers the test's commands, one JSON line each way: a command
 * `{ "n": 3, "op": "goto", ... }` on stdin, its answer `{ "n": 3, "ok": true, "result": ... }` on
 * stdout. Page errors and console errors are collected and handed back with every answer.
 */
import { createInterface } from 'node:readline'
import { chromium, type Page } from 'playwright-core'
import { serveStatic } from '../../scripts/static-server.js'

interface Config {
  id: string
  dist: string
  traces: string
  chromium: string
}

type Command = { n: number; op: string } & Record<string, unknown>

const config = JSON.parse(process.argv[2]!) as Config
const server = await serveStatic({ root: config.dist, mounts: { '/traces/': config.traces } })
const browser = await chromium.launch({
  executablePath: config.chromium,
  headless: true,
  // No first-run work, no component updates, no background networking: nothing to reach anyway.
  args: ['--no-first-run', '--disable-component-update', '--disable-background-networking'],
})
const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
const page: Page = await context.newPage()
const pageErrors: string[] = []
page.on('pageerror', (e) => pageErrors.push(e.message))
page.on('console', (m) => {
  if (m.type() === 'error') pageErrors.push(m.text())
})
/** Paths the page asked for that the server did not have (a missing favicon would be one). */
const notFound: string[] = []
page.on('response', (r) => {
  if (r.status() === 404) notFound.push(new URL(r.url()).pathname)
})

function reply(value: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ ...value, pageErrors: pageErrors.splice(0) })}\n`)
}

/** The page settled: a trace drawn, an error shown, or nothing asked for. */
const STATE = '["ready", "error", "empty"].includes(document.body.dataset.state)'

async function run(c: Command): Promise<unknown> {
  switch (c.op) {
    case 'goto':
      await page.goto(`${server.origin}${c.path as string}`)
      await page.waitForFunction(STATE, undefined, { timeout: 60_000 })
      return page.evaluate('document.body.dataset.state')
    case 'eval':
      return page.evaluate(c.expr as string)
    case 'click':
      await page
        .locator(c.selector as string)
        .first()
        .click({ timeout: 30_000 })
      return null
    case 'hover':
      await page
        .locator(c.selector as string)
        .first()
        .hover({ timeout: 30_000 })
      return null
    case 'dblclick':
      await page
        .locator(c.selector as string)
        .first()
        .dblclick({ timeout: 30_000 })
      return null
    case 'fill':
      await page
        .locator(c.selector as string)
        .first()
        .fill(c.value as string, { timeout: 30_000 })
      return null
    case 'press':
      await page.keyboard.press(c.key as string)
      return null
    case 'setChecked':
      await page
        .locator(c.selector as string)
        .first()
        .setChecked(c.checked as boolean, { timeout: 30_000 })
      return null
    case 'setFiles':
      await page.setInputFiles(c.selector as string, c.path as string)
      await page.waitForFunction(
        `document.title.startsWith(${JSON.stringify(c.name)}) && (${STATE})`,
        undefined,
        { timeout: 60_000 },
      )
      return page.evaluate('document.body.dataset.state')
    case 'drop': {
      // A real drop event with a DataTransfer holding the file, as a drag from the desktop makes.
      await page.evaluate(
        ([name, text]) => {
          const data = new DataTransfer()
          data.items.add(new File([text!], name!, { type: 'application/json' }))
          for (const type of ['dragenter', 'dragover', 'drop'])
            document.body.dispatchEvent(
              new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }),
            )
        },
        [c.name as string, c.text as string],
      )
      await page.waitForFunction(
        `document.title.startsWith(${JSON.stringify(c.name)}) && (${STATE})`,
        undefined,
        { timeout: 60_000 },
      )
      return page.evaluate('document.body.dataset.state')
    }
    case 'screenshot':
      // With a selector, that element alone (the tour's terminal); else the page.
      if (typeof c.selector === 'string')
        await page
          .locator(c.selector)
          .first()
          .screenshot({ path: c.path as string })
      else await page.screenshot({ path: c.path as string, fullPage: c.fullPage === true })
      return null
    case 'drag': {
      // A press, a move in steps and a release, as a hand on the mouse does.
      const [x1, y1, x2, y2] = c.points as number[]
      await page.mouse.move(x1!, y1!)
      await page.mouse.down()
      await page.mouse.move(x2!, y2!, { steps: 8 })
      await page.mouse.up()
      return null
    }
    case 'wheel':
      await page.mouse.move(c.x as number, c.y as number)
      await page.mouse.wheel(0, c.deltaY as number)
      return null
    case 'notFound':
      return [...notFound]
    case 'viewport':
      await page.setViewportSize({ width: c.width as number, height: c.height as number })
      return null
    default:
      throw new Error(`unknown op ${c.op}`)
  }
}

reply({ ready: true, origin: server.origin, version: browser.version() })
const lines = createInterface({ input: process.stdin })
for await (const line of lines) {
  if (line.trim() === '') continue
  const c = JSON.parse(line) as Command
  if (c.op === 'close') break
  try {
    reply({ n: c.n, ok: true, result: await run(c) })
  } catch (e) {
    reply({ n: c.n, ok: false, error: e instanceof Error ? e.message : String(e) })
  }
}
await browser.close()
await server.close()
process.exit(0)
