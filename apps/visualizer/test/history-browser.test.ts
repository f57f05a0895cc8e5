/**
 * A non-linearizable history drawn in a real browser (Chromium driven by playwright-core inside a
 * loopback-only network namespace, as browser.test.ts does; skipped with a notice without root,
 * `ip` or Chromium, failed under SD_REQUIRE_ALL=1).
 *
 * The fixture is a real run's trace (`pnpm cluster -- --n 3 --seconds 6 --loopback --chaos
 * pause-holder --seed 7 --trace T --history H`) whose history was edited: one grant moved into the
 * previous holding (two holders) and one read made stale, then judged back into the trace with
 * `pnpm cluster -- check-history H --trace T --out FILE` (its `historyCheck`). The page must draw
 * every operation of each failing sub-history, as many as the file has, on its client's line,
 * with the reason.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { traceToDiagram } from '../src/trace.js'
import { Browser, browserGate } from './support/browser.js'

const unavailable = browserGate("the history's browser test")

const app = fileURLToPath(new URL('..', import.meta.url))
const screenshots = fileURLToPath(new URL('./screenshots/', import.meta.url))
const text = gunzipSync(
  readFileSync(join(app, 'test/fixtures/cluster-history-check-trace.json.gz')),
).toString()

interface Counterexample {
  node: string
  client: string
  invokedAt: number
  completedAt?: number
  label: string
}
const doc = JSON.parse(text) as {
  historyCheck: {
    models: Array<{ model: string; verdict: string; counterexample?: Counterexample[] }>
  }
}
const failing = doc.historyCheck.models.filter((m) => m.verdict === 'not-linearizable')

const browser = new Browser()
let dir: string | undefined

beforeAll(async () => {
  if (unavailable) return
  dir = mkdtempSync(join(tmpdir(), 'sd-visualizer-history-'))
  const dist = join(dir, 'dist')
  const traces = join(dir, 'traces')
  mkdirSync(traces)
  mkdirSync(screenshots, { recursive: true })
  const built = spawnSync(
    process.execPath,
    [join(app, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', dist, '--logLevel', 'warn'],
    { cwd: app, encoding: 'utf8', timeout: 300_000 },
  )
  if (built.status !== 0) throw new Error(`vite build failed: ${built.stderr}${built.stdout}`)
  writeFileSync(join(traces, 'history.json'), text)
  await browser.start(dist, traces)
})

afterAll(async () => {
  await browser.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('the history check of a trace', () => {
  it('is read from the file: both models fail, with their sub-histories', () => {
    expect(failing.map((m) => m.model)).toEqual(['register', 'lock'])
    const d = traceToDiagram(doc)
    expect(d.histories!.map((v) => [v.model, v.operations.length])).toEqual(
      failing.map((m) => [m.model, m.counterexample!.length]),
    )
    expect(d.title).toContain('lock history NOT linearizable (2 operations)')
  })
})

describe.skipIf(unavailable !== undefined)('a non-linearizable history in Chromium', () => {
  it('draws each failing operation as an interval on its client line, with the reason', async () => {
    expect(await browser.call('goto', { path: '/?trace=/traces/history.json' })).toBe('ready')
    const drawn = await browser.eval<
      Array<{ model: string; client: string; y: number; x: number; w: number; title: string }>
    >(`[...document.querySelectorAll('[data-history-op]')].map((g) => {
      const r = g.querySelector('rect')
      return {
        model: g.dataset.historyOp, client: g.dataset.historyClient,
        y: Number(r.getAttribute('y')) + Number(r.getAttribute('height')) / 2,
        x: Number(r.getAttribute('x')), w: Number(r.getAttribute('width')),
        title: g.querySelector('title').textContent,
      }
    })`)
    const expected = failing.flatMap((m) => m.counterexample!.map((o) => ({ model: m.model, o })))
    expect(drawn).toHaveLength(expected.length)
    const lineY = await browser.eval<Record<string, number>>(
      `Object.fromEntries([...document.querySelectorAll('[data-process]')].map((g) => [g.dataset.process, Number(g.querySelector('line').getAttribute('y1'))]))`,
    )
    drawn.forEach((g, i) => {
      const { model, o } = expected[i]!
      expect(g.model).toBe(model)
      expect(g.client).toBe(o.client)
      // On its client's node line, and not empty.
      expect(g.y).toBe(lineY[o.node])
      expect(g.w).toBeGreaterThan(0)
      expect(g.title).toContain(`${model} history NOT linearizable`)
      expect(g.title).toContain(o.label)
    })
    // The two holders: the second grant's interval starts after the first's, on another line.
    const [first, second] = drawn.filter((g) => g.model === 'lock')
    expect(second!.x).toBeGreaterThanOrEqual(first!.x)
    const why = await browser.eval<string[]>(
      `[...document.querySelectorAll('[data-history-why]')].map((t) => t.textContent)`,
    )
    expect(why).toHaveLength(failing.length)
    expect(why.join('\n')).toContain('lock history NOT linearizable: ')
    expect(await browser.eval<string>(`document.getElementById('title').textContent`)).toContain(
      'register history NOT linearizable (1 operation)',
    )
    await browser.eval(
      `document.querySelector('[data-history-op="lock"]').scrollIntoView({ block: 'center', inline: 'center' })`,
    )
    await browser.call('screenshot', { path: join(screenshots, 'history-check.png') })
    expect(browser.pageErrors).toEqual([])
  })
})
