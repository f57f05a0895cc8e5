/**
 * Over 450 lines on purpose: every test here shares the one namespace, server and Chromium that
 * `beforeAll` starts (seconds each); split files would each start their own.
 *
 * The lab in a real browser, with the visualizer's harness: Debian's Chromium driven by
 * playwright-core inside a loopback-only network namespace, the built site served on 127.0.0.1
 * there. What the page runs is compared with the simulator run here, in Node, independently of
 * the page. Skipped with a notice without root, `ip` or Chromium; failed instead under
 * SD_REQUIRE_ALL=1.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checks } from '@sd/playground/src/check/index.js'
import { scenarios } from '@sd/playground/src/scenarios/index.js'
import type { TraceEvent } from '@sd/transport'
import { replay } from '@sd/transport/explore'
import { Browser, browserGate } from '@sd/visualizer/test/support/browser.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig, encodeConfig } from '../src/engine/config.js'
import { lessons } from '../src/engine/lessons.js'
import { captureScenario } from '../src/engine/sources.js'

const unavailable = browserGate("the lab's browser tests")

const app = fileURLToPath(new URL('..', import.meta.url))
const screenshots = fileURLToPath(new URL('./screenshots/', import.meta.url))
const browser = new Browser()
let dir: string | undefined

const goto = async (query: string) => {
  expect(await browser.call('goto', { path: `/?${query}` })).toBe('ready')
}
const click = (selector: string) => browser.call('click', { selector })
/** Clicks a button from the page's own script (no pointer simulated: many steps in a loop). */
const press = (id: string) => browser.eval(`document.getElementById('${id}').click()`)
const redrawnHow = () => evaluate<string>("document.getElementById('canvas').dataset.redrawn")
const evaluate = <T>(expr: string) => browser.eval<T>(expr)
/** The page's run: its trace up to the step shown, as JSON (what it draws). */
const pageTrace = () =>
  evaluate<TraceEvent[]>('JSON.parse(JSON.stringify(window.lab.run().traceAt()))')
const drawing = () => evaluate<string>("document.getElementById('canvas').innerHTML")
/** The steering panels' markup (kept from step to step; `window.lab.redraw()` makes them afresh). */
const panels = () =>
  evaluate<string>(
    "['pending', 'nodes', 'links'].map((id) => document.getElementById(id).innerHTML).join('\\n')",
  )
/** The drawing and the panels as shown, then as made afresh: undefined when they are the same. */
const differsFromFresh = async () => {
  const stepwise = await drawing()
  const kept = await panels()
  await evaluate('window.lab.redraw()')
  return firstDifference(stepwise, await drawing()) ?? firstDifference(kept, await panels())
}
const position = () => evaluate<number>('Number(document.body.dataset.position)')
/** The address, once written: the page writes it after the frame that shows the step. */
const address = () =>
  evaluate<string>(
    'new Promise((resolve) => requestAnimationFrame(() => setTimeout(() => resolve(location.search), 0)))',
  )
const shot = (name: string) => browser.call('screenshot', { path: join(screenshots, name) })
const json = (x: unknown) => JSON.parse(JSON.stringify(x))

beforeAll(async () => {
  if (unavailable) return
  dir = mkdtempSync(join(tmpdir(), 'sd-lab-'))
  const dist = join(dir, 'dist')
  mkdirSync(screenshots, { recursive: true })
  // The site as `pnpm lab:build` writes it, of the current sources; SD_LAB_DIST serves another
  // build instead (the step timings of an older build, measured beside the current one).
  const prebuilt = process.env.SD_LAB_DIST
  if (prebuilt) {
    await browser.start(prebuilt, prebuilt)
    return
  }
  const built = spawnSync(
    process.execPath,
    [join(app, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', dist, '--logLevel', 'warn'],
    { cwd: app, encoding: 'utf8', timeout: 300_000 },
  )
  if (built.status !== 0) throw new Error(`vite build failed: ${built.stderr}${built.stdout}`)
  // The site at / and again under /traces/: relative paths, so any directory of a static host.
  await browser.start(dist, dist)
})

afterAll(async () => {
  await browser.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe.skipIf(unavailable !== undefined)('the lab in Chromium', () => {
  it('runs a scenario in the page as sd run does, one line per node', async () => {
    await goto('scenario=flood&n=5&seed=1')
    await click('#run-end')
    const s = scenarios.find((x) => x.name === 'flood')!
    expect(await pageTrace()).toEqual(json(s.run({ n: 5, seed: 1, crash: [] }).net.trace))
    expect(
      await evaluate<number>("document.querySelectorAll('#diagram [data-process]').length"),
    ).toBe(5)
    expect(browser.pageErrors).toEqual([])
  })

  it('choosing another next message changes the run as SimNetwork.take does', async () => {
    await goto('scenario=flood&n=5&seed=1')
    for (let i = 0; i < 12; i++) await click('#forward')
    expect(await position()).toBe(12)
    // A message in flight that is not the one the run would take next.
    const key = await evaluate<string>(
      "document.querySelector('#pending li[data-kind=deliver]:not([data-next])').dataset.choice",
    )
    const unsteered = await drawing()
    await click(`#pending li[data-choice="${key}"] button[data-step="${key}"]`)
    await shot('steered.png')
    for (let i = 0; i < 30; i++) await click('#forward')
    const { net } = captureScenario(defaultConfig('flood', 5))
    for (let i = 0; i < 12; i++) net.step()
    expect(net.take(key, 'happen')).toBe(true)
    for (let i = 0; i < 30; i++) net.step()
    expect(await pageTrace()).toEqual(json(net.trace))
    expect(await address()).toContain(encodeURIComponent(key))
    expect(await drawing()).not.toBe(unsteered)
  })

  it('back then forward gives an identical drawing; a shared URL replays identically', async () => {
    await goto('scenario=election-bully&n=8&seed=1')
    for (let i = 0; i < 40; i++) await click('#forward')
    await click('button[data-step="crash:5"]')
    for (let i = 0; i < 40; i++) await click('#forward')
    const before = await drawing()
    const trace = await pageTrace()
    for (let i = 0; i < 15; i++) await click('#back')
    expect(await position()).toBe(66)
    expect(await drawing()).not.toBe(before)
    for (let i = 0; i < 15; i++) await click('#forward')
    expect(await drawing()).toBe(before)
    // The address holds the run: opened afresh, it replays to the same drawing.
    const url = await address()
    expect(url).toContain('crash%3A5')
    await goto(url.slice(1))
    expect(await position()).toBe(81)
    expect(await pageTrace()).toEqual(trace)
    expect(await drawing()).toBe(before)
    // Branch at step 66: crash 6 instead; the old line is kept, and compared under the new one.
    for (let i = 0; i < 15; i++) await click('#back')
    await click('#branch')
    expect(await evaluate<number>('window.lab.run().length')).toBe(66)
    await click('button[data-step="crash:6"]')
    await click('#run-end')
    await click('button[data-compare="0"]')
    expect(await evaluate<boolean>("document.getElementById('compare-pane').hidden")).toBe(false)
    const differ = Number(
      await evaluate<string>("document.getElementById('compare-title').dataset.differ"),
    )
    const a = await evaluate<number>("document.querySelectorAll('#canvas [data-diff=a]').length")
    const b = await evaluate<number>(
      "document.querySelectorAll('#compare-canvas [data-diff=b]').length",
    )
    expect(a).toBeGreaterThan(0)
    expect(b).toBeGreaterThan(0)
    expect(a + b).toBe(differ)
    const old = await evaluate<string>("document.querySelector('#branches a').search")
    expect(old).toBe(url)
    await shot('branch-compared.png')
    await click('#compare-close')
    expect(await evaluate<boolean>("document.getElementById('compare-pane').hidden")).toBe(true)
  })

  it('a crash injected at a step gives the trace of sd run --crash', async () => {
    await goto('scenario=flood&n=5&seed=1&steps=crash%3A4')
    await click('#run-end')
    const s = scenarios.find((x) => x.name === 'flood')!
    expect(await pageTrace()).toEqual(json(s.run({ n: 5, seed: 1, crash: [4] }).net.trace))
  })

  it('opens an sd check counterexample with the violation marked', async () => {
    const schedule = 't:1#1 m:1>2#1 drop:m:1>3#1 drop:m:2>3#1'
    await goto(`scenario=flood&n=3&schedule=${encodeURIComponent(schedule)}`)
    await click('#run-end')
    const spec = checks.find((c) => c.scenario === 'flood')!
    const replayed = replay(spec.build(3), schedule)
    await click('#first-violation')
    expect(await evaluate<string>("document.getElementById('verdict').textContent")).toBe(
      `BROKEN: ${replayed.violation}`,
    )
    expect(await pageTrace()).toEqual(json(replayed.net.trace))
    const marked = await evaluate<string[]>(
      "[...document.querySelectorAll('#diagram [data-violation]')].map((g) => g.dataset.violation)",
    )
    expect(marked.length).toBeGreaterThan(0)
    expect(new Set(marked)).toEqual(new Set([replayed.violation]))
    await shot('counterexample.png')
  })

  /** Plays the lesson open in the page: acts when told, else on to the next beat; then to the end. */
  async function playLesson(onAct?: () => Promise<void>) {
    for (let i = 0; i < 20; i++) {
      if ((await evaluate<number>("document.querySelectorAll('#lesson-act').length")) > 0) {
        await onAct?.()
        await click('#lesson-act')
      } else if ((await evaluate<number>("document.querySelectorAll('#next-beat').length")) > 0)
        await click('#next-beat')
      else break
    }
    await click('#run-end')
    return Number(await evaluate<string>("document.getElementById('say').dataset.beat"))
  }

  it.each(lessons.map((l) => l.id))('plays the %s lesson to its end', async (id) => {
    const lesson = lessons.find((l) => l.id === id)!
    await goto(`lesson=${id}`)
    expect(await playLesson()).toBe(lesson.beats.length - 1)
    const s = scenarios.find((x) => x.name === lesson.config.scenario)!
    const lines = await evaluate<number>(
      "document.querySelectorAll('#diagram [data-process]').length",
    )
    expect(lines).toBe(lesson.config.n)
    if (lesson.beats.every((b) => b.act === undefined)) {
      // Nothing done by hand: the run drawn is sd run's, entry for entry.
      const sdRun = s.run({ n: lesson.config.n, seed: 1, crash: [] })
      expect(await pageTrace()).toEqual(json(sdRun.net.trace))
      // And so is its verdict: broken exactly when the scenario reports a violation it shows.
      const broken = (sdRun.expectedViolations ?? []).length + sdRun.violations.length > 0
      expect(await evaluate<number>("document.querySelectorAll('#first-violation').length")).toBe(
        broken ? 1 : 0,
      )
    }
    expect(browser.pageErrors).toEqual([])
  })

  it('the bully lesson in Portuguese: crash 7 when told, 7 leads again at the end', async () => {
    await goto('lesson=bully&lang=pt')
    expect(await evaluate<string>("document.getElementById('say').textContent")).toMatch(
      /Oito processos/,
    )
    await playLesson(async () => {
      expect(await evaluate<string>("document.getElementById('say').textContent")).toMatch(
        /derrube o 7/,
      )
      await shot('lesson.png')
    })
    const s = scenarios.find((x) => x.name === 'election-bully')!
    const expected = s.run({ n: 8, seed: 1, crash: [] }).result as { leader: number }
    const trace = await pageTrace()
    const leaders = trace.flatMap((e) =>
      e.type === 'emit' && (e.event as { type?: string }).type === 'leader'
        ? [(e.event as { leader: number }).leader]
        : [],
    )
    expect(leaders.at(-1)).toBe(expected.leader)
    expect(await address()).toContain('crash%3A7')
    // Asked once, done once: the button goes once the step is taken.
    const steps = await evaluate<string>("document.getElementById('steps').textContent")
    expect(steps.match(/crash:7/g)).toHaveLength(1)
    expect(await evaluate<string>("document.getElementById('verdict').dataset.verdict")).toBe(
      'holds',
    )
    await click('#lang')
    expect(await evaluate<string>("document.getElementById('say').textContent")).toMatch(
      /^7 recovers/,
    )
  })

  it('steps on a run of 5,000 events (timings logged, not asserted)', async () => {
    await goto(encodeConfig(defaultConfig('flood', 48)))
    await click('#run-end')
    const length = await evaluate<number>('window.lab.run().length')
    const entries = await evaluate<number>('window.lab.run().net.trace.length')
    const timed = async (selector: string) => {
      await click(selector)
      return evaluate<{ engineMs: number; drawMs: number; parts: Record<string, number> }>(
        'window.lab.timings.at(-1)',
      )
    }
    const back = await timed('#back')
    const forward = await timed('#forward')
    const middle = Math.floor(length / 2)
    await evaluate(`window.lab.run().goTo(${middle + 1})`)
    const backInThePast = await timed('#back')
    const branch = await timed('#branch')
    const branchDrawn = await redrawnHow()
    // Nothing laid out late moves the steering buttons once the step is shown: a button that
    // moves between a press and its release loses the click.
    const crashAt = () =>
      evaluate<number>(
        `document.querySelector('button[data-step="crash:2"]').getBoundingClientRect().y + document.getElementById('side').scrollTop`,
      )
    const shownAt = await crashAt()
    // Scrolled to, as a reader (or playwright) would: rows passing into view are laid out then.
    await evaluate(
      `document.querySelector('button[data-step="crash:2"]').scrollIntoView({ block: 'center' }); new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 300)))`,
    )
    expect(await crashAt(), 'crash 2 moved after the branch was shown').toBe(shownAt)
    const crash = await timed('button[data-step="crash:2"]')
    expect(await position()).toBe(middle + 1)
    console.log(
      `flood n=48: ${length} steps, ${entries} trace entries; at the end: back ${fmt(back)}, forward again along the line ${fmt(forward)}; at step ${middle + 1}: back ${fmt(backInThePast)}, branch at step ${middle} (from the nearest checkpoint; drawing ${branchDrawn === 'grown' ? 'cut back' : branchDrawn === 'true' ? 'afresh' : 'kept'}) ${fmt(branch)}, then crash 2 ${fmt(crash)}`,
    )
    expect(length).toBeGreaterThan(3000)
    expect(entries).toBeGreaterThan(5000)
    // Along the line (run to the end, then back and forth in its middle): the line drawn once,
    // a step only hides or shows what follows it. Redrawn only when the view crosses into a
    // stretch of the line not drawn yet (a run this size is drawn around the view).
    await click('#run-end')
    await evaluate(`window.lab.run().goTo(${middle})`)
    await click('#forward')
    const along: number[] = []
    const alongSteps: number[] = []
    const alongFrames: number[] = []
    const alongShown: number[] = []
    let redrawn = 0
    for (const selector of [...Array(40).fill('#back'), ...Array(40).fill('#forward')]) {
      await evaluate(FRAME_AFTER_CLICK)
      const t = await timed(selector)
      along.push(t.drawMs)
      alongSteps.push(t.engineMs + t.drawMs)
      const { frame, shown } = await frameAfterClick(300)
      if (frame !== undefined) alongFrames.push(frame)
      if (shown !== undefined) alongShown.push(shown)
      if ((await evaluate<string>("document.getElementById('canvas').dataset.redrawn")) === 'true')
        redrawn++
    }
    expect(await position()).toBe(middle + 1)
    expect(redrawn).toBeLessThan(along.length / 4)
    // At the live end a step makes the line longer: the drawing is brought along (the new
    // marks, arrows and lanes drawn, those that changed drawn again), not drawn afresh. Many
    // steps, for a median and a 95th percentile, each clicked and its frame waited for.
    await evaluate(`window.lab.run().goTo(${middle})`)
    await click('#branch')
    const how = new Map<string, number>()
    const liveFrames: number[] = []
    const liveShown: number[] = []
    for (let i = 0; i < LIVE_STEPS; i++) {
      await evaluate(FRAME_AFTER_CLICK)
      await click('#forward')
      const { frame, shown } = await frameAfterClick(3000)
      if (frame !== undefined) liveFrames.push(frame)
      if (shown !== undefined) liveShown.push(shown)
      const redrawnNow = await redrawnHow()
      how.set(redrawnNow, (how.get(redrawnNow) ?? 0) + 1)
    }
    expect(await position()).toBe(middle + LIVE_STEPS)
    if (!process.env.SD_LAB_DIST) expect(how.get('grown') ?? 0).toBeGreaterThan(LIVE_STEPS / 2)
    // Read at the end: the address is written just after each step (an older build: within it).
    const steps = await evaluate<
      Array<{ engineMs: number; drawMs: number; parts: Record<string, number>; urlMs?: number }>
    >(`window.lab.timings.slice(-${LIVE_STEPS})`)
    const drawingOnly = steps.map(
      (t) => t.parts.diagram! + t.parts.layoutAndSvg! + t.parts.marksAndDom!,
    )
    const url = steps.flatMap((t) => (t.urlMs === undefined ? [] : [t.urlMs]))
    console.log(
      `flood n=48, ${LIVE_STEPS} new steps at the live end from step ${middle}: show (drawing and panels) ${quantiles(steps.map((t) => t.drawMs))}; engine and show ${quantiles(steps.map((t) => t.engineMs + t.drawMs))}; the drawing alone ${quantiles(drawingOnly)}${url.length > 0 ? `; the address, written after ${quantiles(url)}` : ''}; from the click to the next frame ${quantiles(liveFrames)}, to the frame shown ${quantiles(liveShown)}; drawings ${[...how].map(([k, v]) => `${k === 'grown' ? 'brought along' : k === 'true' ? 'afresh' : 'kept'} ${v}`).join(', ')}`,
    )
    // A branch near the live end (three steps back, a crash chosen there): the common case of
    // going back a little to choose otherwise.
    for (let i = 0; i < 3; i++) await press('back')
    await evaluate("window.lab.take('crash:3')")
    const nearEnd = await evaluate<{
      engineMs: number
      drawMs: number
      parts: Record<string, number>
    }>('window.lab.timings.at(-1)')
    const nearEndDrawn = await redrawnHow()
    expect(await position()).toBe(middle + LIVE_STEPS - 2)
    console.log(
      `flood n=48, a branch 3 steps before the live end (step ${middle + LIVE_STEPS - 3}, crash 3; drawing ${nearEndDrawn === 'grown' ? 'cut back' : 'afresh'}): ${fmt(nearEnd)}`,
    )
    along.sort((a, b) => a - b)
    console.log(
      `flood n=48, 80 steps along the line at step ${middle}: draw median ${along[40]!.toFixed(1)} ms, from ${along[0]!.toFixed(1)} to ${along.at(-1)!.toFixed(1)} ms; engine and show ${quantiles(alongSteps)}; from the click to the next frame ${quantiles(alongFrames)}, to the frame shown ${quantiles(alongShown)}; ${redrawn} redrawn (a new stretch in view)`,
    )
    // Branches far back (half the line back from its live end), the line run to its end again
    // before each: a median and a 95th percentile of the whole step, and of the diagram built
    // again (`cutBuild`) and the drawing brought back to it (`cutSync`).
    const far: Array<{ engineMs: number; drawMs: number; parts: Record<string, number> }> = []
    const farHow = new Map<string, number>()
    const farFrames: number[] = []
    const farShown: number[] = []
    for (let i = 0; i < FAR_BRANCHES; i++) {
      await click('#run-end')
      const at = Math.floor((await evaluate<number>('window.lab.run().length')) / 2) - 7 * i
      await evaluate(`window.lab.run().goTo(${at + 1})`)
      // The step back draws another stretch: its frame shown before the branch is timed, so that
      // the branch's frame is its own.
      await evaluate(FRAME_AFTER_CLICK)
      await click('#back')
      await frameAfterClick(300)
      // From the click to the frame after it (the browser's style and layout of the step too).
      await evaluate(FRAME_AFTER_CLICK)
      far.push(await timed('#branch'))
      const { frame, shown } = await frameAfterClick(3000)
      if (frame !== undefined) farFrames.push(frame)
      if (shown !== undefined) farShown.push(shown)
      const how = await redrawnHow()
      farHow.set(how, (farHow.get(how) ?? 0) + 1)
      expect(await evaluate<number>('window.lab.run().length')).toBe(at)
    }
    const part = (k: string) => quantiles(far.map((t) => t.parts[k] ?? 0))
    console.log(
      `flood n=48, ${FAR_BRANCHES} branches half the line back: engine and show ${quantiles(far.map((t) => t.engineMs + t.drawMs))}; the diagram built again ${part('cutBuild')}; the drawing brought back ${part('cutSync')}; marks and DOM ${part('marksAndDom')}; pending ${part('pending')}${farFrames.length > 0 ? `; from the click to the next frame ${quantiles(farFrames)}, to the frame shown ${quantiles(farShown)}` : ''}; drawings ${[...farHow].map(([k, v]) => `${k === 'grown' ? 'cut back' : k === 'true' ? 'afresh' : 'kept'} ${v}`).join(', ')}; each step ${far.map((t) => (t.engineMs + t.drawMs).toFixed(1)).join(' ')} ms, each frame ${farFrames.map((f) => f.toFixed(1)).join(' ')} ms`,
    )
  })

  it('a drawing grown step by step at the live end is the drawing of the same step drawn afresh', async () => {
    // A small run drawn whole, steered (a message duplicated, one dropped, a crash): compared at
    // every step.
    await goto('scenario=flood&n=6&seed=1')
    let grown = 0
    const steered: string[] = []
    for (let i = 0; i < 70; i++) {
      // From step 15, a message in flight duplicated, then one dropped; a crash at step 45.
      const want = steered.length === 0 ? 'dup' : steered.length === 1 ? 'drop' : undefined
      const word =
        i >= 15 && want
          ? await evaluate<string>(
              `document.querySelector('#pending button[data-step^="${want}:"]')?.dataset.step ?? ''`,
            )
          : ''
      if (word !== '') {
        steered.push(word)
        await click(`#pending button[data-step="${word}"]`)
      } else if (i === 45) await click('button[data-step="crash:3"]')
      else await click('#forward')
      if ((await evaluate<string>("document.getElementById('canvas').dataset.redrawn")) === 'grown')
        grown++
      expect(await differsFromFresh()).toBeUndefined()
    }
    expect(steered).toHaveLength(2)
    expect(grown).toBeGreaterThan(30)
    // Branches: the drawing cut back to the branch's step, then grown, is a fresh drawing of it.
    await branchesGrown([40, 20, 5])
    // A run drawn by stretches (5,000 events): grown for 300 steps from step 2,000, compared
    // every 25 steps and after a branch.
    await goto(encodeConfig(defaultConfig('flood', 48)))
    await evaluate('window.lab.run().run(2000)')
    await evaluate('window.lab.redraw()')
    grown = 0
    for (let i = 1; i <= 300; i++) {
      await press('forward')
      if ((await redrawnHow()) === 'grown') grown++
      if (i % 25 !== 0) continue
      expect(await differsFromFresh()).toBeUndefined()
    }
    expect(grown).toBeGreaterThan(200)
    expect(await evaluate<number>('window.lab.run().length')).toBe(2300)
    // At most 100 pending events listed, the earliest due; the others counted.
    const { net } = captureScenario(defaultConfig('flood', 48))
    for (let i = 0; i < 2300; i++) net.step()
    const pendingNow = net.choices().length
    expect(pendingNow).toBeGreaterThan(100)
    expect(await evaluate<number>("document.querySelectorAll('#pending li').length")).toBe(100)
    expect(await evaluate<string>("document.getElementById('pending').textContent")).toContain(
      `${pendingNow - 100} more due later, not listed`,
    )
    // Scrolled by hand two panes back: the stretch drawn follows the view, the step stays; the
    // next step brings the drawing back to its own view, the same as drawn afresh.
    const view = await evaluate<{ left: number; width: number; stretch: string }>(
      "(() => { const c = document.getElementById('canvas'); const stretch = c.dataset.stretch; c.scrollLeft = Math.max(0, c.scrollLeft - 2 * c.clientWidth); return { left: c.scrollLeft, width: c.clientWidth, stretch } })()",
    )
    let covered = false
    for (let k = 0; k < 100 && !covered; k++) {
      const [from, to] = (
        await evaluate<string>("document.getElementById('canvas').dataset.stretch")
      )
        .split(' ')
        .map(Number)
      covered = from! <= view.left && to! >= view.left + view.width
      if (!covered) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(
      covered,
      `the stretch drawn (was ${view.stretch}) follows the view at ${view.left}`,
    ).toBe(true)
    expect(await evaluate<number>('window.lab.run().length')).toBe(2300)
    expect(await position()).toBe(2300)
    await press('forward')
    expect(await differsFromFresh()).toBeUndefined()
    await branchesGrown([2250, 2100])
    expect(browser.pageErrors).toEqual([])
  })

  it('along the line, the drawing at a step is the same however it was reached', async () => {
    // The whole line drawn, what follows the step hidden: the same SVG as the line opened at
    // that step from its address, and as reached by going back from the end.
    await goto('scenario=election-bully&n=8&seed=1&steps=~40+crash%3A5+~40')
    await click('#run-end')
    for (let i = 0; i < 200 && (await position()) > 60; i++) await click('#back')
    const hidden = await drawing()
    const shown = await evaluate<number>(
      "document.querySelectorAll('#diagram .marks [data-event]:not(.off-time)').length",
    )
    const trace = await pageTrace()
    const drawnEvents = await evaluate<number>(
      "document.querySelectorAll('#diagram .marks [data-event]').length",
    )
    expect(drawnEvents).toBeGreaterThan(shown)
    await click('#end')
    for (let i = 0; i < 200 && (await position()) > 60; i++) await click('#back')
    expect(await drawing()).toBe(hidden)
    // Every mark shown is an entry of the trace up to the step; none after it.
    const ids = await evaluate<number[]>(
      "[...document.querySelectorAll('#diagram .marks [data-event]:not(.off-time)')].map((g) => Number(g.dataset.event))",
    )
    expect(ids.every((id) => id < trace.length)).toBe(true)
    expect(ids.length).toBe(shown)
  })
})

/**
 * At each step of `at` (each before the last): *Branch here*, the drawing brought back to the
 * step (not drawn afresh); three steps forward; then back two steps and a crash chosen there (a
 * branch by a choice in the past). Every one compared with a fresh drawing and fresh panels.
 */
async function branchesGrown(at: readonly number[]): Promise<void> {
  for (const step of at) {
    await evaluate(`window.lab.run().goTo(${step})`)
    await press('back')
    await press('forward')
    await click('#branch')
    expect(await redrawnHow()).toBe('grown')
    expect(await evaluate<number>('window.lab.run().length')).toBe(step)
    expect(await differsFromFresh()).toBeUndefined()
    for (let i = 0; i < 3; i++) {
      await press('forward')
      expect(await differsFromFresh()).toBeUndefined()
    }
    await press('back')
    await press('back')
    await evaluate("window.lab.take('crash:2')")
    expect(await redrawnHow()).toBe('grown')
    expect(await evaluate<number>('window.lab.run().length')).toBe(step + 2)
    expect(await differsFromFresh()).toBeUndefined()
  }
}

/** Where two drawings' markup first differ, with some of each around it (undefined: same). */
function firstDifference(a: string, b: string): string | undefined {
  if (a === b) return undefined
  let i = 0
  while (i < a.length && a[i] === b[i]) i++
  return `at ${i} of ${a.length}/${b.length}: …${a.slice(i - 200, i + 200)}… vs …${b.slice(i - 200, i + 200)}…`
}

/** Steps taken at the live end of the 5,000-event run for the timings. */
const LIVE_STEPS = 150

/**
 * Notes in `window.frameAfterClick` the ms from the next click to the end of the browser's work
 * on the page for the frame after it (style, layout, paint: the main thread's part), and keeps
 * the Event Timing entries of clicks (`clickPaints`): a click's duration there runs to the frame
 * shown, raster and compositing included (only for real clicks, and only from 16 ms).
 */
const FRAME_AFTER_CLICK = `window.frameAfterClick = undefined
if (!window.clickPaints) {
  window.clickPaints = new Map()
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.name === 'click') window.clickPaints.set(e.startTime, e.duration)
  }).observe({ type: 'event', durationThreshold: 16 })
}
document.addEventListener('click', (event) => {
  const t0 = performance.now()
  window.clickAt = event.isTrusted ? event.timeStamp : undefined
  requestAnimationFrame(() => setTimeout(() => { window.frameAfterClick = performance.now() - t0 }, 0))
}, { capture: true, once: true })`

/**
 * What `FRAME_AFTER_CLICK` noted once the frame came (undefined: none within 5 s), and the time to
 * the frame shown (16 when no entry came within `waitMs`: under Event Timing's threshold).
 */
const frameAfterClick = (waitMs: number) =>
  evaluate<{ frame?: number; shown?: number }>(`new Promise((resolve) => {
  const until = performance.now() + 5000
  const check = () => window.frameAfterClick !== undefined || performance.now() > until
    ? shown(performance.now() + ${waitMs}) : setTimeout(check, 2)
  const shown = (by) => {
    const d = window.clickAt === undefined ? undefined : window.clickPaints.get(window.clickAt)
    if (d !== undefined || window.clickAt === undefined) resolve({ frame: window.frameAfterClick, shown: d })
    else if (performance.now() > by) resolve({ frame: window.frameAfterClick, shown: 16 })
    else setTimeout(() => shown(by), 5)
  }
  check()
})`)

/** Branches far back timed on the 5,000-event run. */
const FAR_BRANCHES = 9

/** `median 12.3 ms, p95 20.1 ms (from 8.0 to 40.2 ms)` of `ms`. */
function quantiles(ms: number[]): string {
  if (ms.length === 0) return 'none'
  const s = [...ms].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!
  return `median ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms (from ${s[0]!.toFixed(1)} to ${s.at(-1)!.toFixed(1)} ms)`
}

function fmt(t: { engineMs: number; drawMs: number; parts: Record<string, number> }): string {
  const parts = Object.entries(t.parts)
    .map(([k, v]) => `${k} ${v.toFixed(1)}`)
    .join(', ')
  return `${t.engineMs.toFixed(1)} ms + draw ${t.drawMs.toFixed(1)} ms (${parts})`
}
