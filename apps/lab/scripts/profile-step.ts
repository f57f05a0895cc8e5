/**
 * Profiles the frame after a step on the 5,000-event run (flood at n = 48 run to its end) with
 * Chromium's tracing (the DevTools protocol, through playwright-core): for steps at the live end
 * and branches far back, each clicked, the main thread's work (the step's script, style, layout,
 * paint), the raster threads' and the GPU process's, and the click's Event Timing duration (the
 * frame shown). Run inside a loopback-only network namespace, as root, with a built site:
 *
 *   ip netns add sd-prof && ip -n sd-prof link set lo up
 *   ip netns exec sd-prof node --import tsx scripts/profile-step.ts <dist> [out.json]
 *
 * Figures only, asserted nowhere; `out.json` keeps the whole trace for a closer look.
 */
import { writeFileSync } from 'node:fs'
import { serveStatic } from '@sd/visualizer/scripts/static-server.js'
import { launchChromium } from './chromium.js'

const dist = process.argv[2]
if (!dist) throw new Error('usage: profile-step.ts <dist> [out.json]')
const out = process.argv[3]
const LIVE = Number(process.env.LIVE ?? 20)
const FAR = Number(process.env.FAR ?? 5)

const server = await serveStatic({ root: dist })
const { browser, context } = await launchChromium()
try {
  const page = await context.newPage()
  await page.goto(`${server.origin}/?scenario=flood&n=48&seed=1`)
  await page.waitForFunction('document.body.dataset.state === "ready"', undefined, {
    timeout: 60_000,
  })
  // A style added for an experiment (PROFILE_CSS='#canvas .shaft { stroke-dasharray: none }').
  if (process.env.PROFILE_CSS) await page.addStyleTag({ content: process.env.PROFILE_CSS })
  await page.click('#run-end')
  // Each click marked, and its Event Timing entry kept (the frame shown: raster included).
  await page.evaluate(`(() => {
    window.shown = []
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.name === 'click') window.shown.push(e.duration)
    }).observe({ type: 'event', durationThreshold: 16 })
    document.addEventListener('click', () => performance.mark('step'), { capture: true })
  })()`)
  const settle = () =>
    page.evaluate(
      "new Promise((r) => requestAnimationFrame(() => setTimeout(() => requestAnimationFrame(() => setTimeout(() => { performance.mark('stop'); r() }, 60)), 0)))",
    )
  const length = await page.evaluate<number>('window.lab.run().length')
  const middle = Math.floor(length / 2)
  await page.evaluate(`window.lab.run().goTo(${middle + 1})`)
  await page.click('#back')
  await page.click('#branch')
  await settle()
  const categories = [
    'devtools.timeline',
    'disabled-by-default-devtools.timeline',
    'cc',
    'blink.user_timing',
    // More, for a closer look (PROFILE_CATEGORIES=disabled-by-default-devtools.timeline.invalidationTracking).
    ...(process.env.PROFILE_CATEGORIES?.split(',') ?? []),
  ]
  // PROFILE_TRACE=0: no tracing (its cost left out), only the page's own timings and the frames.
  const tracing = process.env.PROFILE_TRACE !== '0'
  const timed: Array<Record<string, number>> = []
  const note = async () =>
    timed.push(
      await page.evaluate<Record<string, number>>(
        '(({ engineMs, drawMs, parts }) => ({ engineMs, drawMs, ...parts }))(window.lab.timings.at(-1))',
      ),
    )
  // PROFILE_JS=1: V8's sampling profiler over each step clicked (build the site with
  // `--minify false` for names): self and total time per function.
  const cdp = process.env.PROFILE_JS === '1' ? await context.newCDPSession(page) : undefined
  if (cdp) {
    await cdp.send('Profiler.enable')
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 })
  }
  const profiles: CpuProfile[] = []
  const step = async (selector: string) => {
    if (cdp) await cdp.send('Profiler.start')
    await page.click(selector)
    if (cdp) profiles.push((await cdp.send('Profiler.stop')).profile as unknown as CpuProfile)
  }
  const phase = async (name: string, steps: () => Promise<number>) => {
    await page.evaluate('window.shown.length = 0')
    timed.length = 0
    if (tracing) await browser.startTracing(page, { categories })
    profiles.length = 0
    const n = await steps()
    if (profiles.length > 0) selfTimes(name, profiles)
    const shown = await page.evaluate<number[]>('window.shown.slice()')
    if (tracing) {
      const buffer = await browser.stopTracing()
      if (out) writeFileSync(out.replace(/\.json$/, `-${name}.json`), buffer)
      report(name, n, JSON.parse(buffer.toString()).traceEvents as TraceEvent[], shown)
    } else console.log(`\n== ${name}: frame shown (Event Timing) ${shown.join(' ')} ms`)
    const keys = Object.keys(timed[0] ?? {})
    console.log(
      `page's timings, median: ${keys.map((k) => `${k} ${median(timed.map((t) => t[k] ?? 0)).toFixed(1)}`).join(', ')}`,
    )
  }
  const SCROLL = Number(process.env.SCROLL ?? 0)
  // SCROLL=n: the pane scrolled by 16 px n times, nothing else changed (what scrolling costs).
  if (SCROLL > 0)
    await phase('scroll', async () => {
      for (let i = 0; i < SCROLL; i++) {
        await page.evaluate(
          "performance.mark('step'); document.getElementById('canvas').scrollLeft -= 16",
        )
        await settle()
      }
      return SCROLL
    })
  const ALONG = Number(process.env.ALONG ?? 0)
  // ALONG=n: n steps back along the line first (a past step only shows or hides: the floor).
  if (ALONG > 0)
    await phase('along', async () => {
      for (let i = 0; i < ALONG; i++) {
        await step('#back')
        await note()
        await settle()
      }
      for (let i = 0; i < ALONG; i++) await page.click('#forward')
      return ALONG
    })
  await phase('live', async () => {
    for (let i = 0; i < LIVE; i++) {
      await step('#forward')
      await note()
      await settle()
    }
    return LIVE
  })
  await phase('far', async () => {
    for (let i = 0; i < FAR; i++) {
      await page.evaluate('window.lab.run().run(20000, window.lab.run().horizon)')
      await page.click('#end')
      await settle()
      const at = Math.floor((await page.evaluate<number>('window.lab.run().length')) / 2) - 7 * i
      await page.evaluate(`window.lab.run().goTo(${at})`)
      await page.click('#forward')
      await page.click('#back')
      await settle()
      await page.evaluate("performance.mark('far')")
      await step('#branch')
      await note()
      await settle()
    }
    return FAR
  })
  // PROFILE_SHOT=<file.png>: the page after the last step, to see what it shows.
  if (process.env.PROFILE_SHOT) await page.screenshot({ path: process.env.PROFILE_SHOT })
} finally {
  await browser.close()
  await server.close()
}

interface TraceEvent {
  name: string
  ph: string
  ts: number
  dur?: number
  /** The thread's CPU time in it (the machine is shared: wall time waits for the CPU). */
  tdur?: number
  pid: number
  tid: number
  args?: { name?: string; tileData?: { layerId?: number } }
  cat: string
}

/**
 * Per step (from one click's mark to the next), the time each thread spent in the events of
 * interest, the medians over the steps printed; for `far`, only the windows after a `far` mark.
 */
function report(name: string, n: number, events: TraceEvent[], shown: number[]): void {
  const threads = new Map<string, string>()
  for (const e of events)
    if (e.ph === 'M' && e.name === 'thread_name') threads.set(`${e.pid}:${e.tid}`, e.args!.name!)
  const marks = events
    .filter(
      (e) =>
        e.cat.includes('blink.user_timing') &&
        (e.name === 'step' || e.name === 'far' || e.name === 'stop'),
    )
    .sort((a, b) => a.ts - b.ts)
  const windows: Array<[number, number]> = []
  for (let i = 0; i < marks.length; i++) {
    const m = marks[i]!
    if (m.name !== 'step') continue
    if (name === 'far' && marks[i - 1]?.name !== 'far') continue
    windows.push([m.ts, marks[i + 1]?.ts ?? m.ts + 2_000_000])
  }
  const wanted = new Set([
    'EventDispatch',
    'FunctionCall',
    'UpdateLayoutTree',
    'Layout',
    'PrePaint',
    'Paint',
    'Layerize',
    'Commit',
    'RasterTask',
    'ImageDecodeTask',
    'ProxyMain::BeginMainFrame',
    'LayerTreeHostImpl::PrepareToDraw',
    'DisplayScheduler::DrawAndSwap',
    'Graphics.Pipeline',
    'ScrollLayer',
    'HitTest',
    'GPUTask',
    'TileManager::AssignGpuMemoryToTiles',
    'GpuRasterization',
    'RasterizerDisplayList',
  ])
  const per: Array<Map<string, number>> = windows.map(() => new Map())
  const cpu: Array<Map<string, number>> = windows.map(() => new Map())
  for (const e of events) {
    if (e.ph !== 'X' || e.dur === undefined || !wanted.has(e.name)) continue
    const w = windows.findIndex(([a, b]) => e.ts >= a && e.ts < b)
    if (w < 0) continue
    const thread = (threads.get(`${e.pid}:${e.tid}`) ?? `${e.tid}`).replace(/\d+$/, '')
    const key = `${thread} ${e.name}`
    // Raster also by the compositor layer its tile belongs to (which layer a step paints again).
    const layer = e.name === 'RasterTask' ? e.args?.tileData?.layerId : undefined
    for (const k of layer === undefined ? [key] : [key, `RasterTask of layer ${layer}`]) {
      per[w]!.set(k, (per[w]!.get(k) ?? 0) + e.dur / 1000)
      cpu[w]!.set(k, (cpu[w]!.get(k) ?? 0) + (e.tdur ?? e.dur) / 1000)
    }
  }
  const keys = [...new Set(per.flatMap((m) => [...m.keys()]))].sort()
  console.log(
    `\n== ${name}: ${n} steps, ${windows.length} windows; frame shown (Event Timing) ${shown.map((x) => x.toFixed(0)).join(' ')} ms`,
  )
  for (const k of keys) {
    const xs = per.map((m) => m.get(k) ?? 0)
    const cs = cpu.map((m) => m.get(k) ?? 0)
    if (median(xs) < 0.5 && Math.max(...xs) < 2) continue
    console.log(
      `${k.padEnd(52)} wall median ${median(xs).toFixed(1).padStart(6)} ms, max ${Math.max(...xs)
        .toFixed(1)
        .padStart(6)}; CPU median ${median(cs).toFixed(1).padStart(6)} ms`,
    )
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] ?? 0
}

interface CpuProfile {
  nodes: Array<{
    id: number
    callFrame: { functionName: string; url: string; lineNumber: number }
    children?: number[]
  }>
  samples: number[]
  timeDeltas: number[]
}

/** The functions that took most of the samples (self time), and with their callees (total). */
function selfTimes(name: string, profiles: CpuProfile[]): void {
  const self = new Map<string, number>()
  const total = new Map<string, number>()
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((n) => [n.id, n]))
    const parent = new Map<number, number>()
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
    const label = (id: number) => {
      const f = byId.get(id)!.callFrame
      return `${f.functionName || '(anonymous)'}:${f.lineNumber}`
    }
    profile.samples.forEach((id, i) => {
      const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000
      self.set(label(id), (self.get(label(id)) ?? 0) + dt)
      const seen = new Set<string>()
      for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
        const l = label(n)
        if (seen.has(l)) continue
        seen.add(l)
        total.set(l, (total.get(l) ?? 0) + dt)
      }
    })
  }
  const top = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 40)
      .map(([k, v]) => `  ${v.toFixed(1).padStart(8)} ms ${k}`)
      .join('\n')
  console.log(
    `\n-- ${name}: ${profiles.length} steps; self time\n${top(self)}\n-- ${name}: total time\n${top(total)}`,
  )
}
