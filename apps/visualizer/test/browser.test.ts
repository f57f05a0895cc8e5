/**
 * The visualizer in a real browser: Debian's Chromium driven by playwright-core, inside a
 * loopback-only network namespace (Chromium reaches for update and DNS servers even headless),
 * the built page served on 127.0.0.1 there. Traces come from the playground's scenarios, run
 * here; what the page draws is compared with counts and causal sets computed from the traces
 * independently of the page's code. Skipped with a notice without root, `ip` or Chromium;
 * failed instead under SD_REQUIRE_ALL=1.
 *
 * Over 450 lines on purpose: every page scenario shares the one Chromium and namespace that
 * `beforeAll` starts (the slow part); the helpers live in test/support.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'
import { SHIVIZ_REGEX, traceToShiViz, traceVectorClocks } from '@sd/clocks'
import { main as playground } from '@sd/playground/src/cli.js'
import { scenarios } from '@sd/playground/src/scenarios/index.js'
import { type Ctx, SimNetwork, type TraceDocument } from '@sd/transport'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { diffRuns } from '../src/compare.js'
import { traceToDiagram } from '../src/trace.js'
import { Browser, browserGate } from './support/browser.js'
import { causalPastFuture, expectedArrows, processEvents, processOf } from './support/expected.js'

const unavailable = browserGate("the visualizer's browser tests")

const app = fileURLToPath(new URL('..', import.meta.url))
const screenshots = fileURLToPath(new URL('./screenshots/', import.meta.url))
const browser = new Browser()
let dir: string | undefined
const traces: Record<string, TraceDocument> = {}

/** The trace of a playground scenario, as `sd run <name> --trace` writes it. */
function scenarioTrace(
  name: string,
  options: { n?: number; crash?: number[]; seed?: number } = {},
) {
  const scenario = scenarios.find((s) => s.name === name)
  if (!scenario) throw new Error(`no scenario ${name}`)
  return scenario
    .run({ n: options.n ?? scenario.defaultN, seed: options.seed ?? 1, crash: options.crash ?? [] })
    .net.traceDocument()
}

/** Pings over links that lose and duplicate messages, cut short while some are in flight. */
function duplicatesTrace(): TraceDocument {
  const net = new SimNetwork({
    seed: 3,
    latency: { kind: 'uniform', min: 1, max: 20 },
    loss: 0.1,
    duplicate: 0.3,
  })
  net.launch([1, 2, 3], (self) => ({
    start(ctx: Ctx<{ type: 'ping' }, never>) {
      ctx.setTimer('ping', 1)
    },
    onTimer(_key: string, ctx: Ctx<{ type: 'ping' }, never>) {
      for (const peer of ctx.peers) if (peer !== self) ctx.send(peer, { type: 'ping' })
      ctx.setTimer('ping', 5)
    },
    onMessage() {},
  }))
  net.run({ until: 60 })
  return net.traceDocument()
}

const VISIBLE = ':not(.off-time):not(.off-filter)'
const count = (selector: string) =>
  browser.eval<number>(`document.querySelectorAll(${JSON.stringify(selector)}).length`)
const attrs = (selector: string, attr: string) =>
  browser.eval<string[]>(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.getAttribute(${JSON.stringify(attr)}))`,
  )
const open = async (file: string, query = '') => {
  expect(await browser.call('goto', { path: `/?trace=/traces/${file}${query}` })).toBe('ready')
}
/** Where the overview's brush is on the screen. */
const brushRect = () =>
  browser.eval<{ x: number; y: number; w: number; h: number }>(`(() => {
    const r = document.querySelector('[data-overview] [data-brush]').getBoundingClientRect()
    return { x: r.left, y: r.top, w: r.width, h: r.height }
  })()`)

/** Drags the brush's right edge to `fraction` of its width; returns where the brush was. */
async function dragBrushEdge(fraction: number) {
  const b = await brushRect()
  const y = b.y + b.h / 2
  await browser.call('drag', { points: [b.x + b.w - 1, y, b.x + b.w * fraction, y] })
  return b
}

const shot = (name: string) => browser.call('screenshot', { path: join(screenshots, name) })

/**
 * The story of `pnpm demo`'s bully section at 80 columns, from 7's crash to its return, and the
 * run's outcome: the README's picture of the tour.
 */
function tourExcerpt(): string {
  const out: string[] = []
  const code = playground(['tour', '--width', '80'], { out: (t) => out.push(t), err: () => {} })
  if (code !== 0) throw new Error(`sd tour exited ${code}`)
  const text = out.join('\n')
  const start = text.indexOf('=== election-bully ===')
  const section = text.slice(start, text.indexOf('\n=== ', start + 1)).split('\n')
  const header = section.findIndex((l) => /^t \(ms\)/.test(l.trim()))
  const crash = section.findIndex((l) => /^ +60\.0 /.test(l)) // 7 fails
  const back = section.findIndex((l) => /^ +130\.0 /.test(l))
  const outcome = section.findIndex((l) => l.startsWith('messages sent'))
  return [
    '$ pnpm demo',
    '…',
    ...section.slice(0, header + 2),
    ...section.slice(crash, crash + 26),
    '        …',
    ...section.slice(back, back + 20),
    '        …',
    ...section.slice(outcome),
  ].join('\n')
}

/** A page that shows `text` as an 80-column terminal does. */
function terminalPage(text: string): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;')
  return `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><style>
body { margin: 0; background: #fff; }
pre { display: inline-block; margin: 0; padding: 12px 16px; background: #1e1e1e; color: #e6e6e6;
  font: 13px/1.3 'DejaVu Sans Mono', monospace; }
</style></head><body data-state="ready"><pre id="terminal">${escaped}</pre></body></html>`
}

beforeAll(async () => {
  if (unavailable) return
  dir = mkdtempSync(join(tmpdir(), 'sd-visualizer-'))
  const dist = join(dir, 'dist')
  const tracesDir = join(dir, 'traces')
  mkdirSync(tracesDir)
  mkdirSync(screenshots, { recursive: true })
  // The page as `pnpm visualize` serves it: vite's production build, of the current sources.
  const built = spawnSync(
    process.execPath,
    [join(app, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', dist, '--logLevel', 'warn'],
    { cwd: app, encoding: 'utf8', timeout: 300_000 },
  )
  if (built.status !== 0) throw new Error(`vite build failed: ${built.stderr}${built.stdout}`)

  traces['causal-order'] = scenarioTrace('causal-order')
  traces.vector = scenarioTrace('vector')
  traces['mutex-ricart-agrawala'] = scenarioTrace('mutex-ricart-agrawala')
  traces['election-bully'] = scenarioTrace('election-bully')
  traces['deadlock-prevention'] = scenarioTrace('deadlock-prevention')
  // The same scenario at another seed, for the comparison of two runs.
  traces['mutex-seed2'] = scenarioTrace('mutex-ricart-agrawala', { seed: 2 })
  traces.flood = scenarioTrace('flood', { crash: [4] })
  traces.duplicates = duplicatesTrace()
  // A large run: the flood scenario at 74 nodes, over 25,000 events.
  traces['flood-large'] = scenarioTrace('flood', { n: 74 })
  // The first 4.1 s of an 8 s `pnpm cluster -- --trace` run (3 nodes, a crash, lock, election, sync).
  traces.cluster = JSON.parse(readFileSync(join(app, 'test/fixtures/cluster-trace.json'), 'utf8'))
  // Hand-written: every fault shape the cluster writes (loss, mark, pause, resends, clock step).
  traces['synthetic-faults'] = JSON.parse(
    readFileSync(join(app, 'test/fixtures/synthetic-faults.json'), 'utf8'),
  )
  // Real runs of `pnpm cluster -- --netns --trace`: 20 s with loss, a partition, a killed holder
  // and two paused leaders (kept gzipped), and 8 s with each of those once.
  traces['cluster-20s'] = JSON.parse(
    gunzipSync(readFileSync(join(app, 'test/fixtures/cluster-20s-trace.json.gz'))).toString(),
  )
  traces['cluster-faults'] = JSON.parse(
    readFileSync(join(app, 'test/fixtures/cluster-faults-trace.json'), 'utf8'),
  )
  traces['deadlock-cmh'] = scenarioTrace('deadlock-cmh')
  traces['election-ring'] = scenarioTrace('election-ring')
  for (const [name, doc] of Object.entries(traces))
    writeFileSync(join(tracesDir, `${name}.json`), JSON.stringify(doc))
  writeFileSync(join(dist, 'tour-80.html'), terminalPage(tourExcerpt()))
  writeFileSync(
    join(tracesDir, 'causal-order.shiviz.log'),
    traceToShiViz(traces['causal-order'].events, { header: true }),
  )
  writeFileSync(join(tracesDir, 'broken.json'), '{"format":"sd-trace","events":[{"type":"send"}]}')
  await browser.start(dist, tracesDir)
})

afterAll(async () => {
  await browser.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe.skipIf(unavailable !== undefined)('the visualizer in Chromium', () => {
  it.each([
    'causal-order',
    'mutex-ricart-agrawala',
    'election-bully',
    'deadlock-prevention',
    'flood',
    'duplicates',
  ])(
    '%s: one line per process, one arrow per delivery, drop or copy in flight, one mark per event',
    async (name) => {
      const doc = traces[name]!
      await open(`${name}.json`)
      expect(await attrs('#diagram [data-process]', 'data-process')).toEqual(doc.nodes.map(String))
      const arrows = expectedArrows(doc)
      expect(await count('#diagram [data-message]')).toBe(arrows.total)
      expect(new Set(await attrs('#diagram [data-message]', 'data-message'))).toEqual(arrows.ids)
      const marks = await attrs('#diagram [data-event]', 'data-event')
      expect(marks.map(Number).sort((a, b) => a - b)).toEqual(processEvents(doc))
      // Drops are drawn to a cross with their reason.
      const drops = doc.events.filter((e) => e.type === 'drop')
      expect(await count('#diagram [data-outcome="drop"] .cross')).toBe(drops.length)
      expect((await attrs('#diagram [data-outcome="drop"] .drop-label', 'class')).length).toBe(
        drops.length,
      )
      await shot(`${name}.png`)
    },
  )

  it('draws crashes and restarts as bands, partitions as bands, duplicates as two arrows of one id', async () => {
    await open('election-bully.json')
    const bully = traces['election-bully']!
    expect(await count('#diagram rect.down')).toBe(
      bully.events.filter((e) => e.type === 'crash').length,
    )
    await open('flood.json')
    const flood = traces.flood!
    expect(await count('#diagram [data-partition]')).toBe(
      flood.events.filter((e) => e.type === 'partition').length,
    )
    expect(await count('#diagram rect.down')).toBe(1)
    const reasons = await browser.eval<string[]>(
      `[...document.querySelectorAll('#diagram .drop-label')].map((e) => e.textContent)`,
    )
    expect(new Set(reasons)).toEqual(
      new Set(flood.events.flatMap((e) => (e.type === 'drop' ? [e.reason] : []))),
    )
    // The README's picture: a delivery on node 3 selected, its causal past and future lit.
    const pick = flood.events.findIndex(
      (e, i) => e.type === 'deliver' && e.to === 3 && i > flood.events.length / 3,
    )
    await open('flood.json', '&layout=time&zoom=fit')
    await browser.call('click', { selector: `#diagram [data-event="${pick}"]` })
    await browser.call('hover', { selector: 'h1' })
    await browser.call('viewport', { width: 1440, height: 660 })
    await shot('flood-selected.png')
    await browser.call('viewport', { width: 1440, height: 900 })
    await open('duplicates.json')
    const dup = traces.duplicates!
    const duplicated = dup.events.filter((e) => e.type === 'duplicate')
    expect(duplicated.length).toBeGreaterThan(0)
    expect(await count('#diagram [data-duplicate]')).toBe(duplicated.length)
    for (const e of duplicated.slice(0, 3))
      expect(await count(`#diagram [data-message="${e.id}"]`)).toBe(2)
    expect(await count('#diagram [data-outcome="in-flight"]')).toBeGreaterThan(0)
  })

  it('highlights the causal past and future of a clicked event, as the happened-before graph and vector clocks say', async () => {
    for (const name of ['causal-order', 'mutex-ricart-agrawala', 'election-bully']) {
      const doc = traces[name]!
      await open(`${name}.json`)
      // Vector clocks from @sd/clocks over the same process events: an independent second check.
      const clocked = traceVectorClocks(doc.events, {
        include: (e) => !['drop', 'duplicate', 'partition', 'heal'].includes(e.type),
      })
      const clockOf = new Map(clocked.map((c) => [doc.events.indexOf(c.source as never), c]))
      const visible = await attrs(`#diagram [data-event]${VISIBLE}`, 'data-event')
      const picks = [
        visible[0]!,
        visible[Math.floor(visible.length / 3)]!,
        visible[Math.floor((2 * visible.length) / 3)]!,
      ]
      for (const pick of picks) {
        const selected = Number(pick)
        await browser.call('click', { selector: `#diagram [data-event="${selected}"]` })
        const past = (await attrs('#diagram [data-event].past', 'data-event')).map(Number)
        const future = (await attrs('#diagram [data-event].future', 'data-event')).map(Number)
        expect(await attrs('#diagram [data-event].selected', 'data-event')).toEqual([pick])
        const want = causalPastFuture(doc, selected)
        expect(new Set(past)).toEqual(want.past)
        expect(new Set(future)).toEqual(want.future)
        const v = clockOf.get(selected)!.clock
        for (const i of past) expect(clockOf.get(i)!.clock.compare(v)).toBe('before')
        for (const i of future) expect(clockOf.get(i)!.clock.compare(v)).toBe('after')
        expect(
          await browser.eval('document.querySelector("#selection [data-past]").dataset.past'),
        ).toBe(String(want.past.size))
      }
      if (name === 'causal-order') await shot('causal-order-selected.png')
      await browser.call('press', { key: 'Escape' })
      expect(await count('#diagram [data-event].past')).toBe(0)
    }
  })

  it('steps through virtual time: the visible arrows grow to all of them; back and play work', async () => {
    const doc = traces['causal-order']!
    await open('causal-order.json')
    const total = expectedArrows(doc).total
    const visibleArrows = () => count(`#diagram [data-message]${VISIBLE}`)
    const visibleEvents = () => count(`#diagram [data-event]${VISIBLE}`)
    await browser.call('click', { selector: '#reset' })
    expect(await visibleArrows()).toBe(0)
    expect(await visibleEvents()).toBe(0)
    const seen: number[] = []
    let events = 0
    for (let i = 0; i < 500; i++) {
      await browser.call('click', { selector: '#step' })
      const arrows = await visibleArrows()
      const nowEvents = await visibleEvents()
      expect(nowEvents).toBeGreaterThanOrEqual(events)
      events = nowEvents
      seen.push(arrows)
      if (arrows === total && events === processEvents(doc).length) break
    }
    expect(seen.every((a, i) => i === 0 || a >= seen[i - 1]!)).toBe(true)
    expect(seen[seen.length - 1]).toBe(total)
    expect(new Set(seen).size).toBeGreaterThan(5)
    expect(await browser.eval('document.getElementById("status").dataset.arrows')).toBe(
      String(total),
    )
    await browser.call('press', { key: 'ArrowLeft' })
    await browser.call('press', { key: 'ArrowLeft' })
    expect(await visibleEvents()).toBeLessThan(events)
    // Play from the start at 50 steps/s until everything is shown again.
    await browser.eval(
      `(() => { const s = document.getElementById('speed'); s.value = '50'; s.dispatchEvent(new Event('change')) })()`,
    )
    await browser.call('click', { selector: '#reset' })
    await browser.call('click', { selector: '#play' })
    let done = false
    for (let i = 0; i < 600 && !done; i++) {
      done = (await visibleArrows()) === total && (await visibleEvents()) === events
      if (!done) await new Promise((r) => setTimeout(r, 100))
    }
    expect(done).toBe(true)
    // Play stops itself on the tick after the last step: give it that tick, on a busy machine too.
    let pressed = 'true'
    for (let i = 0; i < 100 && pressed !== 'false'; i++) {
      pressed = String(
        await browser.eval('document.getElementById("play").getAttribute("aria-pressed")'),
      )
      if (pressed !== 'false') await new Promise((r) => setTimeout(r, 100))
    }
    expect(pressed).toBe('false')
  })

  it('hovering an event shows its details with vector and Lamport clocks, and the clocks the trace carries', async () => {
    const doc = traces.vector!
    await open('vector.json')
    const send = doc.events.findIndex((e) => e.type === 'send')
    await browser.call('hover', { selector: `#diagram [data-event="${send}"]` })
    const text = await browser.eval<string>('document.getElementById("tooltip").innerText')
    expect(await browser.eval('document.getElementById("tooltip").hidden')).toBe(false)
    expect(text).toMatch(/vector clock\s+\[\d+, \d+, \d+\] over \(1, 2, 3\)/)
    expect(text).toMatch(/Lamport clock\s+\d+/)
    // The vector scenario's messages carry their own clocks: shown as found in the trace.
    expect(text).toContain('msg.vector = [0, 0, 1]')
    expect(text).toContain('msg.lamport = 1')
    await browser.call('hover', { selector: '#diagram [data-message]' })
    expect(await browser.eval<string>('document.getElementById("tooltip").innerText')).toMatch(
      /outcome\s+delivered at/,
    )
  })

  it('filters by message type and by protocol', async () => {
    const mutex = traces['mutex-ricart-agrawala']!
    await open('mutex-ricart-agrawala.json')
    const total = expectedArrows(mutex).total
    const types = await attrs('#types input', 'data-type')
    expect(types.length).toBeGreaterThan(1)
    const type = types[0]!
    const ofType = mutex.events.filter(
      (e) => e.type === 'send' && (e.msg as { type: string }).type === type,
    ).length
    await browser.call('setChecked', {
      selector: `#types input[data-type="${type}"]`,
      checked: false,
    })
    expect(await count(`#diagram [data-message]${VISIBLE}`)).toBe(total - ofType)
    await browser.call('setChecked', {
      selector: `#types input[data-type="${type}"]`,
      checked: true,
    })
    expect(await count(`#diagram [data-message]${VISIBLE}`)).toBe(total)

    const dp = traces['deadlock-prevention']!
    await open('deadlock-prevention.json')
    expect(new Set(await attrs('#protos input', 'data-proto'))).toEqual(
      new Set(['wait-die', 'wound-wait']),
    )
    await browser.call('setChecked', {
      selector: '#protos input[data-proto="wound-wait"]',
      checked: false,
    })
    const waitDie = dp.events.filter((e) => e.type === 'deliver' && e.proto === 'wait-die').length
    expect(await count(`#diagram [data-message]${VISIBLE}`)).toBe(waitDie)
    await shot('deadlock-prevention-wait-die.png')
  })

  it('opens a ShiViz log from @sd/clocks: hosts, events, messages and causality from its clocks', async () => {
    const doc = traces['causal-order']!
    await open('causal-order.shiviz.log')
    expect(await browser.eval('document.body.dataset.format')).toBe('shiviz')
    const log = traceToShiViz(doc.events, { header: true })
    const entries = [...log.matchAll(new RegExp(SHIVIZ_REGEX, 'g'))].map((m) => ({
      host: m.groups!.host!,
      clock: JSON.parse(m.groups!.clock!) as Record<string, number>,
    }))
    const hosts = [...new Set(entries.map((e) => e.host))]
    expect(await attrs('#diagram [data-process]', 'data-process')).toEqual(hosts)
    expect(await count('#diagram [data-event]')).toBe(entries.length)
    // ShiViz's rule: a delivery whose send the receiver did not know yet is a message edge.
    const clocked = traceVectorClocks(doc.events)
    const sendClock = new Map<number, Record<string, number>>()
    const known = new Map<string, Record<string, number>>()
    let edges = 0
    for (const c of clocked) {
      const clock = c.clock.toObject() as Record<string, number>
      const host = String(c.host)
      if (c.source.type === 'send') sendClock.set(c.source.id!, clock)
      if (c.source.type === 'deliver') {
        const from = String(c.source.from)
        const sent = sendClock.get(c.source.id!)![from]!
        if (sent > (known.get(host)?.[from] ?? 0)) edges++
      }
      known.set(host, clock)
    }
    expect(await count('#diagram [data-message]')).toBe(edges)
    // Causal past and future from the log's own vector clocks: V(f) ≤ V(e) and V(e) ≤ V(f).
    const leq = (a: Record<string, number>, b: Record<string, number>) =>
      Object.entries(a).every(([k, v]) => v <= (b[k] ?? 0))
    for (const pick of [3, Math.floor(entries.length / 2), entries.length - 2]) {
      await browser.call('click', { selector: `#diagram [data-event="${pick}"]` })
      const past = new Set((await attrs('#diagram [data-event].past', 'data-event')).map(Number))
      const future = new Set(
        (await attrs('#diagram [data-event].future', 'data-event')).map(Number),
      )
      const e = entries[pick]!.clock
      const want = (rel: (f: Record<string, number>) => boolean) =>
        new Set(entries.flatMap((f, i) => (i !== pick && rel(f.clock) ? [i] : [])))
      expect(past).toEqual(want((f) => leq(f, e)))
      expect(future).toEqual(want((f) => leq(e, f)))
    }
    await shot('causal-order-shiviz.png')
  })

  it('opens files from the file picker and from a drop, and says what is wrong with a bad one', async () => {
    await open('flood.json')
    await browser.call('setFiles', {
      selector: '#file',
      path: join(dir!, 'traces', 'mutex-ricart-agrawala.json'),
      name: 'mutex-ricart-agrawala.json',
    })
    expect(await count('#diagram [data-message]')).toBe(
      expectedArrows(traces['mutex-ricart-agrawala']!).total,
    )
    const state = await browser.call('drop', {
      name: 'dropped-causal-order.json',
      text: JSON.stringify(traces['causal-order']),
    })
    expect(state).toBe('ready')
    expect(await count('#diagram [data-message]')).toBe(
      expectedArrows(traces['causal-order']!).total,
    )
    expect(await browser.call('goto', { path: '/?trace=/traces/broken.json' })).toBe('error')
    expect(await browser.eval('document.getElementById("error").textContent')).toMatch(
      /Cannot open broken\.json: event 0 \(send\) has no finite time/,
    )
    expect(await browser.call('goto', { path: '/?trace=/traces/missing.json' })).toBe('error')
    expect(await browser.eval('document.getElementById("error").textContent')).toMatch(/404/)
    expect(await browser.call('goto', { path: '/' })).toBe('empty')
  })

  it('a cluster trace fills the view: lines over the height, a time axis, the overview, labelled marks, state lanes', async () => {
    const doc = traces.cluster!
    await open('cluster.json')
    const lines = await browser.eval<number[]>(
      `[...document.querySelectorAll('#diagram [data-process] line')].map((l) => Number(l.getAttribute('y1')))`,
    )
    expect(lines).toHaveLength(doc.nodes.length)
    const paneHeight = await browser.eval<number>(`document.getElementById('canvas').clientHeight`)
    expect(Math.max(...lines) - Math.min(...lines)).toBeGreaterThan(0.6 * paneHeight)
    const tickLabels = await browser.eval<string[]>(
      `[...document.querySelectorAll('#diagram [data-tick] text')].map((t) => t.textContent)`,
    )
    expect(tickLabels.length).toBeGreaterThanOrEqual(3)
    expect(tickLabels.filter((l) => l !== '0').every((l) => /^[\d.]+ (µs|ms|s)$/.test(l))).toBe(
      true,
    )
    expect(await count('[data-overview] [data-brush]')).toBe(1)
    expect(await count('[data-overview] [data-overview-bin]')).toBeGreaterThan(0)
    // One label per emitted event that tells the story, counted from the trace itself.
    const storyTypes = new Set(['acquired', 'released', 'leader', 'adjusted', 'leader-lost'])
    const inner = (e: { event?: unknown }) => {
      let v = e.event as { event?: unknown; type?: unknown } | undefined
      while (v && v.type === undefined && v.event !== undefined) v = v.event as typeof v
      return v?.type
    }
    const stories = doc.events.filter(
      (e) => e.type === 'emit' && storyTypes.has(String(inner(e as { event?: unknown }))),
    )
    expect(stories.length).toBeGreaterThan(0)
    expect(await count('#diagram [data-mark-label]')).toBe(stories.length)
    const labels = await browser.eval<string[]>(
      `[...document.querySelectorAll('#diagram [data-mark-label]')].map((t) => t.textContent)`,
    )
    expect(labels.some((l) => /^acquired #\d+(:\d+)?$/.test(l))).toBe(true)
    expect(labels.some((l) => /^leader n\d t\d+$/.test(l))).toBe(true)
    expect(labels.some((l) => /^adjusted [+-][\d.]+ ms$/.test(l))).toBe(true)
    expect(await count('#diagram [data-mark-label="shown"]')).toBeGreaterThan(0)
    // State lanes: a holder per acquisition, leaders, followers, the crashed node.
    const acquired = doc.events.filter(
      (e) => e.type === 'emit' && inner(e as { event?: unknown }) === 'acquired',
    )
    expect(await count('#diagram [data-lane-state="holder"]')).toBe(acquired.length)
    for (const state of ['waiting', 'leader', 'follower', 'crashed'])
      expect(await count(`#diagram [data-lane-state="${state}"]`), state).toBeGreaterThan(0)
    // More than ten message types, each its own color.
    const swatches = await browser.eval<string[]>(
      `[...document.querySelectorAll('#types .swatch')].map((s) => s.style.background)`,
    )
    expect(swatches.length).toBeGreaterThan(10)
    expect(new Set(swatches).size).toBe(swatches.length)
    // Arrow labels where there is room, on hover elsewhere: one per arrow but the drops (which
    // carry their reason instead), none lost.
    expect(await count('#diagram [data-arrow-label]')).toBe(
      expectedArrows(doc).total - doc.events.filter((e) => e.type === 'drop').length,
    )
    expect(await count('#diagram [data-arrow-label="shown"]')).toBeGreaterThan(0)
    await shot('cluster.png')
  })

  it.each(['cluster-20s', 'cluster-faults'])(
    'a real %s run: pauses as pauses, partition losses as drops with their reason, faults as bands, the workload marked',
    async (name) => {
      const doc = traces[name]!
      await open(`${name}.json`, '&zoom=fit')
      const ofType = (type: string) => doc.events.filter((e) => e.type === type)
      const field = (e: unknown, key: string) => (e as Record<string, unknown>)[key]
      // A pause is a pause band on its node, never a crash: down bands only for the kills.
      expect(ofType('pause').length).toBeGreaterThan(0)
      expect(await count('#diagram [data-band="paused"]')).toBe(ofType('pause').length)
      expect(await count('#diagram [data-band="down"]')).toBe(ofType('crash').length)
      expect(await count('#diagram [data-band="partition"]')).toBe(ofType('partition').length)
      expect(await count('#diagram [data-band="loss"]')).toBe(
        ofType('loss').filter((e) => Number(field(e, 'percent')) > 0).length,
      )
      expect(await count('#diagram [data-mark-line]')).toBe(1)
      expect(
        await browser.eval<string>(
          `document.querySelector('#diagram [data-mark-line] text').textContent`,
        ),
      ).toBe('workload starts')
      // Every message lost to the partition is a drop, with its reason, not a late delivery.
      const partitionDrops = ofType('drop').filter((e) => field(e, 'reason') === 'partition')
      expect(partitionDrops.length).toBeGreaterThan(0)
      const drawnReasons = await browser.eval<string[]>(
        `[...document.querySelectorAll('#diagram [data-outcome="drop"] [data-drop-label]')].map((t) => t.textContent)`,
      )
      expect(drawnReasons.filter((r) => r === 'partition')).toHaveLength(partitionDrops.length)
      expect(await count('#diagram [data-outcome="drop"]')).toBe(ofType('drop').length)
      expect(await count('#diagram [data-resend]')).toBe(
        ofType('send').filter((e) => field(e, 'resendOf') !== undefined).length,
      )
      // No delivery drawn as a long flat line across a cut (2.6-3 s before the drops were
      // recorded): one over a second late went to a node paused or restarted in the meantime
      // (the kernel held it, or the link retransmitted it to the new process).
      const between = (type: string, node: string, from: number, to: number) =>
        doc.events.some(
          (f) => f.type === type && String(field(f, 'node')) === node && f.t >= from && f.t <= to,
        )
      const pausedAt = (node: string, t: number) => {
        const last = doc.events.filter(
          (f) =>
            (f.type === 'pause' || f.type === 'resume') &&
            String(field(f, 'node')) === node &&
            f.t <= t,
        )
        return last.at(-1)?.type === 'pause'
      }
      for (const d of ofType('deliver')) {
        const sentAt = Number(field(d, 'sentAt'))
        const to = String(field(d, 'to'))
        if (d.t - sentAt > 1000)
          expect(
            pausedAt(to, sentAt) ||
              between('pause', to, sentAt, d.t) ||
              between('restart', to, sentAt, d.t),
            `delivery #${String(field(d, 'id'))} ${d.t - sentAt} ms late`,
          ).toBe(true)
      }
      // The view: lines over the height, a time axis, the overview with the bands, story labels.
      const lines = await browser.eval<number[]>(
        `[...document.querySelectorAll('#diagram .lines [data-process] line')].map((l) => Number(l.getAttribute('y1')))`,
      )
      const paneHeight = await browser.eval<number>(
        `document.getElementById('canvas').clientHeight`,
      )
      expect(Math.max(...lines) - Math.min(...lines)).toBeGreaterThan(0.6 * paneHeight)
      expect(await count('#diagram [data-tick]')).toBeGreaterThanOrEqual(3)
      expect(await count('[data-overview] [data-brush]')).toBe(1)
      expect(await count('[data-overview] [data-overview-band="paused"]')).toBe(
        ofType('pause').length,
      )
      const labels = await browser.eval<string[]>(
        `[...document.querySelectorAll('#diagram [data-mark-label]')].map((t) => t.textContent)`,
      )
      expect(labels.some((l) => /^acquired #\d+(:\d+)?$/.test(l))).toBe(true)
      expect(labels.some((l) => /^leader n\d t\d+$/.test(l))).toBe(true)
      await shot(`${name}.png`)
      if (name !== 'cluster-20s') return
      // The brush: its right edge dragged to a fifth of the run zooms the detail view in.
      const detail = () =>
        browser.eval<{ sx: number; t1: number }>(`(() => {
          const d = document.getElementById('diagram').dataset
          return { sx: Number(d.sx), t1: Number(d.timeTo) }
        })()`)
      const whole = await detail()
      await dragBrushEdge(1 / 5)
      await browser.eval(
        'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))',
      )
      const zoomed = await detail()
      expect(zoomed.sx).toBeGreaterThan(3 * whole.sx)
      expect(zoomed.t1).toBeLessThan(whole.t1)
      await shot(`${name}-brushed.png`)
    },
  )

  it('photographs the tour at 80 columns as a terminal shows it (the README picture)', async () => {
    expect(await browser.call('goto', { path: '/tour-80.html' })).toBe('ready')
    const text = await browser.eval<string>(`document.getElementById('terminal').textContent`)
    for (const line of text.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80)
    expect(text).toMatch(/💥/) // 7 fails
    expect(text).toMatch(/outcome: 7 leads in term \d+/)
    await browser.call('screenshot', { path: join(screenshots, 'tour-80.png'), selector: 'pre' })
  })

  it('draws the fault shapes as bands and marks: loss, pause, crash, partition, marks, resends, clock steps', async () => {
    const doc = traces['synthetic-faults']!
    await open('synthetic-faults.json')
    const ofType = (type: string) => doc.events.filter((e) => e.type === type)
    expect(await count('#diagram [data-band="loss"]')).toBe(
      ofType('loss').filter((e) => (e as unknown as { percent: number }).percent > 0).length,
    )
    expect(await count('#diagram [data-band="partition"]')).toBe(ofType('partition').length)
    expect(await count('#diagram [data-band="down"]')).toBe(ofType('crash').length)
    expect(await count('#diagram [data-band="paused"]')).toBe(ofType('pause').length)
    expect(await count('#diagram [data-mark-line]')).toBe(ofType('mark').length)
    const texts = (selector: string) =>
      browser.eval<string[]>(
        `[...document.querySelectorAll(${JSON.stringify(selector)})].map((t) => t.textContent)`,
      )
    expect(await texts('#diagram [data-band="loss"] text')).toEqual(['loss 20%', 'loss 5%'])
    expect(await texts('#diagram [data-band="paused"] text')).toEqual(['paused'])
    expect(await texts('#diagram [data-mark-line] text')).toEqual([
      'workload starts',
      'checker starts',
    ])
    // Resends: their own arrows, ↻ at the send, pointing at the dropped original.
    const resends = doc.events.flatMap((e) => {
      const r = (e as { resendOf?: number }).resendOf
      return e.type === 'send' && r !== undefined ? [String(r)] : []
    })
    expect(resends.length).toBe(3)
    expect(await attrs('#diagram [data-resend]', 'data-resend')).toEqual(resends)
    expect(await count('#diagram [data-resend] .resend-mark')).toBe(resends.length)
    await browser.call('hover', { selector: `#diagram [data-resend="${resends[0]}"] .hit` })
    expect(await browser.eval<string>('document.getElementById("tooltip").innerText')).toContain(
      `resend of #${resends[0]}`,
    )
    expect(await texts('#diagram [data-mark-label]')).toContain('clock +500 ms')
    // Three drops on node 3 while it is down: one label for the band, the others on hover.
    const crashedDrops = await browser.eval<string[]>(
      `[...document.querySelectorAll('#diagram [data-outcome="drop"] [data-drop-label]')].filter((t) => t.textContent === 'receiver-crashed').map((t) => t.dataset.dropLabel)`,
    )
    expect(crashedDrops.sort()).toEqual(['hover', 'hover', 'shown'])
    // The overview strip shows the bands across all rows too.
    expect(await count('[data-overview] [data-overview-band="loss"]')).toBe(2)
    expect(await count('[data-overview] [data-overview-band="partition"]')).toBe(1)
    expect(await count('[data-overview] [data-overview-band="paused"]')).toBe(1)
    // Stepping: nothing before the start, everything at the end.
    await browser.call('click', { selector: '#reset' })
    expect(await count(`#diagram [data-band]${VISIBLE}`)).toBe(0)
    expect(await count(`#diagram [data-mark-line]${VISIBLE}`)).toBe(0)
    await browser.call('click', { selector: '#end' })
    expect(await count(`#diagram [data-band]${VISIBLE}`)).toBe(5)
    await shot('synthetic-faults.png')
    // Zoomed in and scrolled past the partition's start: its label stays right of the names.
    for (let i = 0; i < 4; i++) await browser.call('press', { key: '+' })
    await browser.eval('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))')
    const placed = await browser.eval<{
      label: number
      names: number
      band: number
    }>(`(async () => {
      const canvas = document.getElementById('canvas')
      const band = document.querySelector('#diagram [data-band="partition"] rect')
      canvas.scrollLeft = Number(band.getAttribute('x')) + 60 - 96
      await new Promise((r) => setTimeout(r, 50))
      return {
        label: document.querySelector('#diagram [data-band="partition"] text').getBoundingClientRect().left,
        names: document.querySelector('#diagram .labels-bg').getBoundingClientRect().right,
        band: band.getBoundingClientRect().left,
      }
    })()`)
    expect(placed.band).toBeLessThan(placed.names)
    expect(placed.label).toBeGreaterThanOrEqual(placed.names)
    await shot('synthetic-faults-scrolled.png')
  })

  it('arrow labels carry CMH probes (i, j, k) and the ring election list; shown labels never overlap', async () => {
    const labelTexts = () =>
      browser.eval<string[]>(
        `[...document.querySelectorAll('#diagram [data-arrow-label]')].map((t) => t.textContent)`,
      )
    const sendsOf = (doc: TraceDocument, type: string) =>
      doc.events.filter((e) => e.type === 'send' && (e.msg as { type?: string }).type === type)
    const overlaps = () =>
      browser.eval<number>(`(() => {
        const boxes = [...document.querySelectorAll('#diagram [data-arrow-label="shown"], #diagram [data-drop-label="shown"]')].map((t) => t.getBoundingClientRect())
        let n = 0
        for (let i = 0; i < boxes.length; i++)
          for (let j = 0; j < i; j++) {
            const a = boxes[i], b = boxes[j]
            if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) n++
          }
        return n
      })()`)
    await open('deadlock-cmh.json')
    const probes = (await labelTexts()).filter((l) => l.startsWith('probe'))
    expect(probes.length).toBe(sendsOf(traces['deadlock-cmh']!, 'probe').length)
    expect(probes.every((l) => /^probe \(\d+,\d+,\d+\)$/.test(l))).toBe(true)
    expect(await overlaps()).toBe(0)
    await shot('deadlock-cmh.png')
    await open('election-ring.json')
    const elections = (await labelTexts()).filter((l) => l.startsWith('election'))
    expect(elections.length).toBeGreaterThan(0)
    expect(elections.every((l) => /^election \[\d+(,\d+)*\]$/.test(l))).toBe(true)
    expect(elections.some((l) => l.includes(','))).toBe(true)
    expect(await overlaps()).toBe(0)
    await shot('election-ring.png')
  })

  it('a 25,000-event trace: the brush in the overview and the wheel set the detail view', async () => {
    const doc = traces['flood-large']!
    expect(doc.events.length).toBeGreaterThanOrEqual(25_000)
    const started = performance.now()
    await open('flood-large.json', '&zoom=fit')
    console.log(
      `flood n=74 (${doc.events.length} events) opened in ${Math.round(performance.now() - started)} ms`,
    )
    expect(await count('#diagram [data-process]')).toBe(doc.nodes.length)
    const lines = await browser.eval<number[]>(
      `[...document.querySelectorAll('#diagram [data-process] line')].map((l) => Number(l.getAttribute('y1')))`,
    )
    const paneHeight = await browser.eval<number>(`document.getElementById('canvas').clientHeight`)
    expect(Math.max(...lines) - Math.min(...lines)).toBeGreaterThan(0.6 * paneHeight)
    expect(await count('#diagram [data-tick]')).toBeGreaterThanOrEqual(3)
    // Marks whose center is inside the detail pane.
    const inView = () =>
      browser.eval<number>(`(() => {
        const pane = document.getElementById('canvas').getBoundingClientRect()
        let n = 0
        for (const g of document.querySelectorAll('#diagram [data-event]${VISIBLE}')) {
          const r = g.getBoundingClientRect()
          const x = r.left + r.width / 2
          if (x >= pane.left + 68 && x <= pane.right) n++
        }
        return n
      })()`)
    const detail = () =>
      browser.eval<{ from: number; to: number; sx: number; t0: number; t1: number }>(`(() => {
        const d = document.getElementById('diagram').dataset
        return { from: Number(d.windowFrom), to: Number(d.windowTo), sx: Number(d.sx), t0: Number(d.timeFrom), t1: Number(d.timeTo) }
      })()`)
    const settle = () =>
      browser.eval('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))')
    const whole = await detail()
    const allInView = await inView()
    expect(allInView).toBe(await count(`#diagram [data-event]${VISIBLE}`))
    // Drag the window's right edge to a tenth of the run: the detail view zooms in.
    const brush = await dragBrushEdge(1 / 10)
    await settle()
    const narrowed = await detail()
    expect(narrowed.sx).toBeGreaterThan(5 * whole.sx)
    expect(narrowed.to - narrowed.from).toBeLessThan((whole.to - whole.from) / 5)
    expect(narrowed.t1).toBeLessThan(whole.t1)
    const fewer = await inView()
    expect(fewer).toBeGreaterThan(0)
    expect(fewer).toBeLessThan(allInView / 2)
    // Only the view's stretch (and a margin) is in the DOM: far fewer marks than the run has.
    const drawn = await count('#diagram [data-event]')
    expect(drawn).toBeGreaterThanOrEqual(fewer)
    expect(drawn).toBeLessThan(processEvents(doc).length / 3)
    console.log(`brushed to a tenth: ${drawn} of ${processEvents(doc).length} event marks drawn`)
    await shot('flood-large-brushed.png')
    // Drag the window's body right: the detail view moves later in the run at the same scale.
    const moved = await brushRect()
    await browser.call('drag', {
      points: [
        moved.x + moved.w / 2,
        moved.y + moved.h / 2,
        moved.x + moved.w / 2 + brush.w / 3,
        moved.y + moved.h / 2,
      ],
    })
    await settle()
    const later = await detail()
    expect(later.t0).toBeGreaterThan(narrowed.t0)
    expect(later.sx).toBeCloseTo(narrowed.sx, 6)
    // The wheel zooms in further; 0 shows the whole run again.
    const pane = await browser.eval<{ x: number; y: number }>(`(() => {
      const r = document.getElementById('canvas').getBoundingClientRect()
      return { x: r.left + r.width / 2, y: r.top + r.height / 2 }
    })()`)
    await browser.call('wheel', { x: pane.x, y: pane.y, deltaY: -400 })
    await settle()
    expect((await detail()).sx).toBeGreaterThan(later.sx * 1.5)
    await browser.call('press', { key: '0' })
    await settle()
    expect((await detail()).sx).toBeCloseTo(whole.sx, 6)
    expect(await inView()).toBe(allInView)
    await shot('flood-large.png')
  })

  it('hides a process (double-click its name): its line, marks and lanes go, the others spread over the height, its arrows become stubs', async () => {
    const doc = traces['election-bully']!
    await open('election-bully.json')
    const nodes = doc.nodes.map(String)
    const lineYs = (hiddenToo = false) =>
      browser.eval<number[]>(
        `[...document.querySelectorAll('#diagram .lines [data-process]${hiddenToo ? '' : ':not(.proc-hidden)'} line')].map((l) => Number(l.getAttribute('y1')))`,
      )
    const before = await lineYs()
    const hidden = nodes[1]!
    await browser.call('dblclick', { selector: `#diagram [data-process-label="${hidden}"]` })
    expect(await attrs('#diagram .lines [data-process].proc-hidden', 'data-process')).toEqual([
      hidden,
    ])
    const after = await lineYs()
    expect(after).toHaveLength(nodes.length - 1)
    // The gap closes: the lines left span the same height, further apart.
    expect(after[0]).toBeCloseTo(before[0]!, 0)
    expect(after[after.length - 1]).toBeCloseTo(before[before.length - 1]!, 0)
    expect(after[1]! - after[0]!).toBeGreaterThan(before[1]! - before[0]!)
    // Every mark of the hidden process hidden, counted from the trace.
    const itsEvents = processEvents(doc).filter((i) => processOf(doc.events[i]!) === hidden)
    expect(itsEvents.length).toBeGreaterThan(0)
    expect(
      (await attrs('#diagram .ev.proc-hidden', 'data-event')).map(Number).sort((a, b) => a - b),
    ).toEqual(itsEvents)
    expect(await count(`#diagram [data-lane-process="${hidden}"]:not(.proc-hidden)`)).toBe(0)
    // A stub on the shown end of each message to or from it.
    const stubs = doc.events.filter(
      (e) =>
        (e.type === 'send' && String(e.to) === hidden && String(e.from) !== hidden) ||
        (e.type === 'deliver' && String(e.from) === hidden && String(e.to) !== hidden),
    ).length
    expect(stubs).toBeGreaterThan(0)
    expect(await count('#diagram [data-stub]')).toBe(stubs)
    // Listed as hidden; a second one hidden from the list; both shown again.
    expect(
      await browser.eval(`document.querySelector('[data-process-toggle="${hidden}"]').checked`),
    ).toBe(false)
    await browser.call('setChecked', {
      selector: `[data-process-toggle="${nodes[0]}"]`,
      checked: false,
    })
    expect(await count('#diagram .lines [data-process]:not(.proc-hidden)')).toBe(nodes.length - 2)
    expect(
      await browser.eval(
        `document.querySelector('[data-hidden-processes]').dataset.hiddenProcesses`,
      ),
    ).toBe([nodes[0], hidden].join(' '))
    await shot('hidden-processes.png')
    await browser.call('click', { selector: '[data-show-all]' })
    expect(await count('#diagram .proc-hidden')).toBe(0)
    expect(await count('#diagram [data-stub]')).toBe(0)
    expect(await lineYs()).toEqual(before)
  })

  it('collapses runs of local events into one mark with their count, and expands one on click', async () => {
    const doc = traces.cluster!
    await open('cluster.json')
    // The runs, from the trace: per node, two or more shown local events between message events.
    const quiet = new Set(['timer-set', 'timer-cancel', 'storage'])
    const breaks = new Set(['send', 'deliver', 'crash', 'restart'])
    const order = doc.events.map((e, i) => ({ e, i })).sort((a, b) => a.e.t - b.e.t || a.i - b.i)
    const open_ = new Map<string, number>()
    const runs: number[] = []
    const close = (p: string) => {
      const n = open_.get(p) ?? 0
      if (n >= 2) runs.push(n)
      open_.delete(p)
    }
    for (const { e, i } of order) {
      if (!processEvents(doc).includes(i) || quiet.has(e.type)) continue
      const p = processOf(e)
      if (breaks.has(e.type)) close(p)
      else open_.set(p, (open_.get(p) ?? 0) + 1)
    }
    for (const p of [...open_.keys()]) close(p)
    expect(runs.length).toBeGreaterThan(0)
    const marks = await count('#diagram [data-event]')
    await browser.call('setChecked', { selector: '[data-collapse-local]', checked: true })
    const counts = (await attrs('#diagram [data-collapsed]', 'data-collapsed')).map(Number)
    expect(counts.sort((a, b) => a - b)).toEqual([...runs].sort((a, b) => a - b))
    const members = runs.reduce((s, n) => s + n - 1, 0)
    expect(await count('#diagram .ev.collapsed-member')).toBe(members)
    expect(await count('#diagram [data-event]')).toBe(marks)
    await shot('collapsed.png')
    const first = Number(
      await browser.eval(`document.querySelector('#diagram [data-collapsed]').dataset.collapsed`),
    )
    await browser.eval(
      `document.querySelector('#diagram [data-collapse-run]').dispatchEvent(new MouseEvent('click', { bubbles: true }))`,
    )
    expect(await count('#diagram [data-collapsed]')).toBe(runs.length - 1)
    expect(await count('#diagram .ev.collapsed-member')).toBe(members - (first - 1))
    await browser.call('setChecked', { selector: '[data-collapse-local]', checked: false })
    expect(await count('#diagram [data-collapsed], #diagram .collapsed-member')).toBe(0)
  })

  it('searches events: matches lit, the rest faded, "1 of N", Enter / shift+Enter move the view to the match, Esc clears', async () => {
    const doc = traces.cluster!
    await open('cluster.json', '&zoom=1.5')
    const order = doc.events.map((e, i) => ({ e, i })).sort((a, b) => a.e.t - b.e.t || a.i - b.i)
    const acquired = order.filter(({ e }) => JSON.stringify(e).includes('"type":"acquired"'))
    expect(acquired.length).toBeGreaterThan(1)
    await browser.call('fill', { selector: '#search', value: 'type=acquired' })
    expect(await attrs('#diagram .search-match', 'data-event')).toHaveLength(acquired.length)
    expect(new Set((await attrs('#diagram .search-match', 'data-event')).map(Number))).toEqual(
      new Set(acquired.map(({ i }) => i)),
    )
    const countText = () =>
      browser.eval<string>(`document.getElementById('search-count').textContent`)
    expect(await countText()).toBe(`${acquired.length} matches`)
    const opacity = (selector: string) =>
      browser.eval<number>(
        `Number(getComputedStyle(document.querySelector(${JSON.stringify(selector)})).opacity)`,
      )
    expect(await opacity('#diagram .ev:not(.search-match)')).toBeLessThan(0.5)
    expect(await opacity('#diagram .ev.search-match')).toBe(1)
    const current = () => attrs('#diagram .search-current', 'data-event')
    const inPane = () =>
      browser.eval<boolean>(`(() => {
        const pane = document.getElementById('canvas').getBoundingClientRect()
        const r = document.querySelector('#diagram .search-current').getBoundingClientRect()
        const x = r.left + r.width / 2
        return x >= pane.left && x <= pane.right
      })()`)
    await browser.call('press', { key: 'Enter' })
    expect(await countText()).toBe(`1 of ${acquired.length}`)
    expect(await current()).toEqual([String(acquired[0]!.i)])
    await browser.call('press', { key: 'Enter' })
    expect(await current()).toEqual([String(acquired[1]!.i)])
    await browser.call('press', { key: 'Shift+Enter' })
    await browser.call('press', { key: 'Shift+Enter' })
    // Wrapped around to the last match, late in the run: the view moved to it.
    expect(await countText()).toBe(`${acquired.length} of ${acquired.length}`)
    expect(await current()).toEqual([String(acquired[acquired.length - 1]!.i)])
    await browser.eval('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))')
    expect(await inPane()).toBe(true)
    await shot('search.png')
    // node=: every event of that process; words combine.
    await browser.call('fill', { selector: '#search', value: 'node=n2' })
    expect(await count('#diagram .search-match')).toBe(
      processEvents(doc).filter((i) => processOf(doc.events[i]!) === 'n2').length,
    )
    await browser.call('fill', { selector: '#search', value: 'acquired node=n2' })
    expect(await count('#diagram .search-match')).toBe(
      acquired.filter(({ e }) => processOf(e) === 'n2').length,
    )
    await browser.call('press', { key: 'Escape' })
    expect(await count('#diagram .search-match')).toBe(0)
    expect(await count('#diagram.has-search')).toBe(0)
    expect(await browser.eval(`document.getElementById('search').value`)).toBe('')
    // A match inside a collapsed run: going to it expands the run.
    await browser.call('setChecked', { selector: '[data-collapse-local]', checked: true })
    const folded = await browser.eval<string>(
      `document.querySelector('#diagram .collapsed-member').dataset.event`,
    )
    await browser.call('fill', { selector: '#search', value: `event=${folded}` })
    await browser.call('press', { key: 'Enter' })
    expect(await current()).toEqual([folded])
    expect(await count(`#diagram [data-event="${folded}"].collapsed-member`)).toBe(0)
    await browser.eval('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))')
    expect(await inPane()).toBe(true)
    // Hidden processes are not searched.
    await browser.call('setChecked', { selector: '[data-process-toggle="n2"]', checked: false })
    await browser.call('fill', { selector: '#search', value: 'node=n2' })
    expect(await countText()).toBe('no match')
  })

  it('compares two runs: both drawn, lines paired by name, the differences marked as the pure diff says', async () => {
    const a = traces['mutex-ricart-agrawala']!
    const b = traces['mutex-seed2']!
    const waitCompare = (total?: number) =>
      browser.eval(`new Promise((resolve, reject) => {
        let n = 0
        const check = () => {
          const head = document.querySelector('[data-diff-total]')
          if (document.getElementById('diagram-b') && head && (${total ?? -1} < 0 || head.dataset.diffTotal === '${total}')) resolve(true)
          else if (++n > 600) reject(new Error('no comparison drawn'))
          else setTimeout(check, 50)
        }
        check()
      })`)
    await open('mutex-ricart-agrawala.json', '&compare=/traces/mutex-seed2.json')
    await waitCompare()
    expect(await count('svg[data-run="a"]')).toBe(1)
    expect(await count('svg[data-run="b"]')).toBe(1)
    const lines = (svg: string) =>
      browser.eval<[string, number][]>(
        `[...document.querySelectorAll('${svg} .lines [data-process]')].map((g) => [g.dataset.process, Number(g.querySelector('line').getAttribute('y1'))])`,
      )
    const linesA = await lines('#diagram')
    expect(linesA.map(([p]) => p)).toEqual(a.nodes.map(String))
    expect(await lines('#diagram-b')).toEqual(linesA)
    // The page's marks against the pure comparison of the same two traces.
    const diff = diffRuns(traceToDiagram(a), traceToDiagram(b))
    expect(diff.total).toBeGreaterThan(0)
    const ids = (set: Set<{ id: number }>) => [...set].map((e) => e.id).sort((x, y) => x - y)
    const marked = async (selector: string) =>
      (await attrs(selector, 'data-event')).map(Number).sort((x, y) => x - y)
    expect(await marked('#diagram [data-diff="a"]')).toEqual(ids(diff.onlyA))
    expect(await marked('#diagram-b [data-diff="b"]')).toEqual(ids(diff.onlyB))
    expect(
      await browser.eval(`document.querySelector('[data-diff-total]').dataset.diffTotal`),
    ).toBe(String(diff.total))
    const perLine = await browser.eval<[string, string][]>(
      `[...document.querySelectorAll('#diagram [data-diff-count]')].map((t) => [t.dataset.diffProcess, t.dataset.diffCount])`,
    )
    expect(perLine).toEqual(
      a.nodes.map((p) => [String(p), String(diff.perProcess.get(String(p))!.a)]),
    )
    // The second pane follows the first's zoom.
    await browser.call('press', { key: '+' })
    await browser.call('press', { key: '+' })
    await browser.eval('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))')
    expect(
      await browser.eval<number>(`document.getElementById('compare-canvas').scrollLeft`),
    ).toBeGreaterThan(0)
    await shot('compare.png')
    // A run against itself: no difference. And the "Compare with…" button.
    await open('mutex-ricart-agrawala.json', '&compare=/traces/mutex-ricart-agrawala.json')
    await waitCompare(0)
    expect(await count('[data-diff]')).toBe(0)
    await open('mutex-ricart-agrawala.json')
    expect(await count('#diagram-b')).toBe(0)
    await browser.call('setFiles', {
      selector: '#compare-file',
      path: join(dir!, 'traces', 'mutex-seed2.json'),
      name: 'mutex-ricart-agrawala.json',
    })
    await waitCompare(diff.total)
    expect(await browser.eval(`document.getElementById('compare-title').textContent`)).toContain(
      'mutex-seed2.json',
    )
    await browser.call('click', { selector: '[data-close-compare]' })
    expect(await count('#diagram-b, [data-diff]')).toBe(0)
  })

  it('says which trace is loading, hides a tooltip whose mark a step hid, keeps the status line still', async () => {
    // A file that never finishes reading: the page stays loading, and says which file.
    await open('causal-order.json')
    await browser.eval(`(() => {
      const ev = new Event('drop', { bubbles: true, cancelable: true })
      const file = { name: 'slow.json', text: () => new Promise(() => {}) }
      Object.defineProperty(ev, 'dataTransfer', { value: { files: [file] } })
      document.body.dispatchEvent(ev)
    })()`)
    expect(await browser.eval('document.body.dataset.state')).toBe('loading')
    expect(await browser.eval('document.getElementById("loading").innerText')).toBe(
      'Loading slow.json…',
    )
    expect(await browser.eval('document.querySelector(".empty")?.checkVisibility() ?? false')).toBe(
      false,
    )
    const doc = traces['causal-order']!
    await open('causal-order.json')
    const last = processEvents(doc).at(-1)!
    await browser.call('hover', { selector: `#diagram [data-event="${last}"]` })
    expect(await browser.eval('document.getElementById("tooltip").hidden')).toBe(false)
    // Back to the start by key: the mark is hidden under the pointer, and its tooltip with it.
    await browser.call('press', { key: 'Home' })
    expect(await browser.eval('document.getElementById("tooltip").hidden')).toBe(true)
    await browser.call('press', { key: 'End' })
    await browser.call('hover', { selector: `#diagram [data-event="${last}"]` })
    expect(await browser.eval('document.getElementById("tooltip").hidden')).toBe(false)
    // A redraw (zoom in) replaces the marks: no tooltip left behind.
    await browser.call('press', { key: '+' })
    await browser.eval('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))')
    expect(await browser.eval('document.getElementById("tooltip").hidden')).toBe(true)
    // The status line keeps its width while stepping.
    const width = () =>
      browser.eval<number>('document.getElementById("status").getBoundingClientRect().width')
    await browser.call('press', { key: 'Home' })
    const widths = [await width()]
    for (let i = 0; i < 12; i++) {
      await browser.call('press', { key: 'ArrowRight' })
      widths.push(await width())
    }
    await browser.call('press', { key: 'End' })
    widths.push(await width())
    expect(new Set(widths).size).toBe(1)
  })

  it('raised no error in the page, and asked for nothing missing but the missing trace', async () => {
    // An inline icon: no request for /favicon.ico.
    const notFound = await browser.call<string[]>('notFound', {})
    expect(notFound.filter((path) => path !== '/traces/missing.json')).toEqual([])

    // A missing trace's 404 is reported by the browser as a console error: the only one allowed.
    expect(browser.pageErrors.filter((e) => !/404/.test(e))).toEqual([])
  })
})
