/// <reference lib="dom" />
/**
 * The lab page: a run of the real packages in the simulator, in the page, steered from the
 * panels and drawn with the visualizer's drawing. The run (`LabRun`) and its URL are the
 * engine's; this file wires the controls, the panels and the drawing to them.
 */
import '@sd/visualizer/src/style.css'
import '@sd/visualizer/src/diagram.css'
import { createTooltip } from '@sd/visualizer/src/tooltip.js'
import './lab.css'
import type { TraceEvent } from '@sd/transport'
import { decodeConfig, defaultConfig, encodeConfig, type LabConfig } from '../engine/config.js'
import { LabRun } from '../engine/lab-run.js'
import { lessonOf, lessons } from '../engine/lessons.js'
import { checkScenarios, runScenarios } from '../engine/sources.js'
import { parseSteps, stepText } from '../engine/steps.js'
import { drawRun, markDifferences, parts } from './draw.js'
import { renderLesson } from './lesson-view.js'
import { followReader, forgetLine, showLine } from './line-view.js'
import { renderSteer } from './steer.js'

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T

const canvas = $<HTMLElement>('canvas')
// Scrolled by hand out of the stretch drawn: the drawing follows, once a frame at most.
let following = false
canvas.addEventListener(
  'scroll',
  () => {
    if (following) return
    following = true
    requestAnimationFrame(() => {
      following = false
      followReader(canvas)
    })
  },
  { passive: true },
)
const errorBox = $<HTMLDivElement>('error')
const scenarioSelect = $<HTMLSelectElement>('scenario')
const nInput = $<HTMLInputElement>('n')
const seedInput = $<HTMLInputElement>('seed')
const crashInput = $<HTMLInputElement>('crash')
const pauseInput = $<HTMLInputElement>('pause')
const clockInput = $<HTMLInputElement>('clock')
const scheduleInput = $<HTMLInputElement>('schedule')
const scrub = $<HTMLInputElement>('scrub')
const statusLine = $<HTMLSpanElement>('status')
const playButton = $<HTMLButtonElement>('play')
const speedSelect = $<HTMLSelectElement>('speed')
const lessonSelect = $<HTMLSelectElement>('lesson-select')
const tooltip = createTooltip($<HTMLDivElement>('tooltip'))

/** Steps "Run to end" takes at most (a scenario with periodic timers never ends by itself). */
const RUN_TO_END_MAX = 20_000

let run: LabRun | undefined
/** The earlier line drawn under the run to compare, while open. */
let compared: { text: string; index: number; steps: number; trace: TraceEvent[] } | undefined
let lang: 'pt' | 'en' = 'en'
/** Which run `open` made last (the drawn line is kept per run, its steps and branches). */
let runNumber = 0

/** Timings of the last actions, in ms, for the tests and the README's figures. */
const timings: Array<{
  what: string
  engineMs: number
  drawMs: number
  /** The drawing's parts (`parts` of draw.ts) and each panel's. */
  parts?: Record<string, number>
  /** Writing the address, just after the step was shown (not in `drawMs`). */
  urlMs?: number
}> = []

function showError(text: string): void {
  errorBox.textContent = text
  errorBox.hidden = false
  document.body.dataset.state = 'error'
}

function fillScenarios(): void {
  const group = (label: string, mode: string, names: readonly string[]) => {
    const g = document.createElement('optgroup')
    g.label = label
    for (const name of names) {
      const o = document.createElement('option')
      o.value = `${mode}:${name}`
      o.textContent = name
      g.append(o)
    }
    scenarioSelect.append(g)
  }
  group(
    'sd run',
    'run',
    runScenarios.map((s) => s.name),
  )
  group(
    'sd check',
    'check',
    checkScenarios.map((c) => c.scenario),
  )
  for (const l of lessons) {
    const o = document.createElement('option')
    o.value = l.id
    o.textContent = l.title.en
    lessonSelect.append(o)
  }
}

/** Opens a run of `config`: re-executes its steps, draws the last, writes the URL. */
function open(config: LabConfig): void {
  stopPlay()
  compared = undefined
  errorBox.hidden = true
  try {
    const started = performance.now()
    run = new LabRun(config)
    runNumber++
    timings.push({ what: 'open', engineMs: performance.now() - started, drawMs: 0 })
  } catch (e) {
    run = undefined
    showError(`Cannot open this run: ${e instanceof Error ? e.message : String(e)}`)
    return
  }
  if (config.lang) lang = config.lang
  scenarioSelect.value = `${config.mode}:${config.scenario}`
  nInput.value = String(config.n > 0 ? config.n : '')
  seedInput.value = String(config.seed)
  crashInput.value = config.crash.join(',')
  pauseInput.value = config.pause
  clockInput.value = config.clockStep
  for (const el of [crashInput, pauseInput, clockInput]) el.disabled = config.mode === 'check'
  lessonSelect.value = config.lesson ?? ''
  document.body.dataset.mode = config.mode
  show('open')
}

/** The config of the run as it stands: its steps up to the one shown. */
function currentConfig(): LabConfig | undefined {
  if (!run) return undefined
  return { ...run.config, steps: parseSteps(run.stepsText(run.length)) }
}

let urlPending = false

/**
 * Writes the address after the step is shown, once for a burst of steps: `history.replaceState`
 * takes the browser tens of ms on a busy machine, and nothing in the step waits for it. After the
 * frame's work on the page, not just after the step: a task queued at once ran before the frame
 * and held it back (20 to 40 ms after a branch far back on the 5,000-event run, the machine busy).
 */
function scheduleUrl(timing: (typeof timings)[number]): void {
  if (urlPending) return
  urlPending = true
  requestAnimationFrame(() =>
    setTimeout(() => {
      urlPending = false
      const started = performance.now()
      writeUrl()
      timing.urlMs = performance.now() - started
    }, 0),
  )
}

function writeUrl(): void {
  const c = currentConfig()
  if (!c) return
  history.replaceState(null, '', `?${encodeConfig(c)}`)
}

/** Draws the step shown and fills the panels. */
function show(what: string, engineMs = 0): void {
  if (!run) return
  const r = run
  const started = performance.now()
  const p = r.position
  const frame = r.frameAt(p)
  const first = r.firstViolation()
  const before = p > 0 ? r.frameAt(p - 1).trace : 0
  const violation =
    first !== undefined && first <= p
      ? {
          from: first > 0 ? r.frameAt(first - 1).trace : 0,
          to: r.frameAt(first).trace,
          message: r.frameAt(first).violation!,
        }
      : undefined
  const marks = { latest: { from: before, to: frame.trace }, ...(violation ? { violation } : {}) }
  if (compared) {
    // Two runs compared: the prefix drawn afresh, so that only what happened so far is diffed.
    forgetLine()
    const drawn = drawRun(
      canvas,
      { seed: r.net.seed, nodes: r.net.nodeIds, events: r.traceAt(p), ...marks },
      tooltip,
    )
    showCompare(r, drawn)
  } else {
    $<HTMLElement>('compare-pane').hidden = true
    const lineLength = r.frameAt(r.length).trace
    // The line is the run's and its branch's: a step at its live end only makes it longer.
    const key = `${runNumber} ${r.branches.length}`
    // A branch's line is the line before it up to the branch's step, then its own steps.
    const b = r.branches.length
    const prefix =
      b > 0 && r.branchSteps[b - 1] !== undefined
        ? { key: `${runNumber} ${b - 1}`, length: r.frameAt(r.branchSteps[b - 1]!).trace }
        : undefined
    const line = showLine(
      canvas,
      {
        seed: r.net.seed,
        nodes: r.net.nodeIds,
        line: () => r.traceAt(r.length),
        lineLength,
        key,
        ...(prefix ? { prefix } : {}),
        shown: frame.trace,
        ...marks,
      },
      tooltip,
    )
    canvas.dataset.redrawn = String(line.redrawn)
  }
  scrub.max = String(r.length)
  scrub.value = String(p)
  const step = p > 0 ? r.stepAt(p - 1) : undefined
  statusLine.textContent = `step ${p} of ${r.length} · t = ${frame.now.toFixed(3)} ms · ${frame.trace} trace entries${step ? ` · last: ${step.kind === 'auto' ? 'next event' : stepText(step)}${frame.skipped ? ' (skipped: no longer applies)' : ''}` : ''}`
  document.body.dataset.position = String(p)
  document.body.dataset.length = String(r.length)
  const panels: Record<string, number> = {}
  const timed = (name: string, f: () => void) => {
    const t = performance.now()
    f()
    panels[name] = performance.now() - t
  }
  timed('invariant', () => showInvariant(r, p, first))
  showSteer(r, timed)
  timed('steps', () => showSteps(r))
  timed('lesson', () => showLesson(r))
  const timing = {
    what,
    engineMs,
    drawMs: performance.now() - started,
    parts: { ...parts, ...panels },
  }
  timings.push(timing)
  scheduleUrl(timing)
  if (timings.length > 200) timings.splice(0, timings.length - 200)
  document.body.dataset.state = 'ready'
}

function showInvariant(r: LabRun, p: number, first: number | undefined): void {
  const box = $<HTMLDivElement>('invariant')
  const now = r.frameAt(p).violation
  box.replaceChildren()
  const name = document.createElement('p')
  name.textContent = r.invariant
  box.append(name)
  const verdict = document.createElement('p')
  verdict.id = 'verdict'
  verdict.dataset.verdict = now === undefined ? 'holds' : 'broken'
  verdict.className = now === undefined ? 'holds' : 'broken'
  verdict.textContent = now === undefined ? 'holds at this step' : `BROKEN: ${now}`
  box.append(verdict)
  if (first !== undefined) {
    const go = document.createElement('button')
    go.type = 'button'
    go.id = 'first-violation'
    go.dataset.goto = String(first)
    go.textContent = `first broken at step ${first}: go there`
    go.onclick = () => {
      r.goTo(first)
      show('goto')
    }
    box.append(go)
  }
}

function showSteer(r: LabRun, timed: (name: string, f: () => void) => void): void {
  const boxes = { past: $('past'), pending: $('pending'), nodes: $('nodes'), links: $('links') }
  const steer = {
    atLive: r.atLive,
    net: r.net,
    emitted: () => r.emitted(),
    // The run open when clicked (the hint stays while the steps shown are in the past).
    branch: () => act(() => run?.branchAt(run.position), 'branch'),
    take,
  }
  renderSteer(boxes, steer, timed)
}

function showSteps(r: LabRun): void {
  const box = $<HTMLDivElement>('steps')
  box.textContent = r.stepsText() || '(none yet)'
  const branches = $<HTMLDivElement>('branches')
  // The earlier lines change only with a branch (or another run).
  const listed = `${runNumber} ${r.branches.length}`
  if (branches.dataset.listed === listed) return
  branches.dataset.listed = listed
  branches.replaceChildren()
  for (const [i, text] of r.branches.entries()) {
    const a = document.createElement('a')
    const config = { ...r.config, steps: parseSteps(text) }
    a.href = `?${encodeConfig(config)}`
    a.target = '_blank'
    a.dataset.branch = String(i)
    a.textContent = `earlier line ${i + 1} (${text.split(' ').length} words)`
    const compare = document.createElement('button')
    compare.type = 'button'
    compare.dataset.compare = String(i)
    compare.textContent = 'compare'
    compare.onclick = () => {
      const old = new LabRun(config)
      compared = { text, index: i, steps: old.length, trace: old.traceAt() }
      show('compare')
    }
    branches.append(a, ' ', compare, document.createElement('br'))
  }
}

/** The earlier line under the run, the events only one of them has ringed (`data-diff`). */
function showCompare(r: LabRun, drawn: ReturnType<typeof drawRun>): void {
  const pane = $<HTMLElement>('compare-pane')
  pane.hidden = compared === undefined
  if (!compared) return
  const old = drawRun(
    $<HTMLElement>('compare-canvas'),
    {
      seed: r.net.seed,
      nodes: r.net.nodeIds,
      events: compared.trace,
      latest: { from: 0, to: 0 },
    },
    tooltip,
  )
  const differ = markDifferences(drawn, old)
  const title = $<HTMLSpanElement>('compare-title')
  title.dataset.differ = String(differ)
  title.textContent = `earlier line ${compared.index + 1}, its ${compared.steps} steps: ${differ} events differ from the run above (ringed)`
}

function showLesson(r: LabRun): void {
  renderLesson(r, lang, { section: $('lesson'), box: $('narration') }, act, RUN_TO_END_MAX)
}

/** Runs `change` on the run, timed, then shows the result. */
function act(change: () => void, what: string): void {
  if (!run) return
  const started = performance.now()
  try {
    change()
  } catch (e) {
    showError(`The run failed: ${e instanceof Error ? e.message : String(e)}`)
    return
  }
  show(what, performance.now() - started)
}

/** Takes the step a button names (its `data-step`). */
function take(word: string): void {
  const r = run
  if (!r) return
  act(() => {
    for (const step of parseSteps(word)) r.choose(step)
  }, `choose ${word}`)
}

let playTimer: ReturnType<typeof setInterval> | undefined

function stopPlay(): void {
  if (playTimer !== undefined) clearInterval(playTimer)
  playTimer = undefined
  playButton.setAttribute('aria-pressed', 'false')
  playButton.textContent = '▶ Play'
}

function togglePlay(): void {
  if (playTimer !== undefined) {
    stopPlay()
    return
  }
  playButton.setAttribute('aria-pressed', 'true')
  playButton.textContent = '❚❚ Pause'
  playTimer = setInterval(() => {
    if (!run) return stopPlay()
    let moved = false
    act(() => {
      moved = run!.forward()
    }, 'play')
    if (!moved) stopPlay()
  }, 1000 / Number(speedSelect.value))
}

function configFromForm(): LabConfig {
  const [mode, scenario] = scenarioSelect.value.split(/:(.*)/s) as [string, string]
  return {
    ...defaultConfig(scenario, Number(nInput.value) || 0),
    mode: mode === 'check' ? 'check' : 'run',
    seed: Number(seedInput.value) || 1,
    crash: crashInput.value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
    pause: pauseInput.value.trim(),
    clockStep: clockInput.value.trim(),
  }
}

function wire(): void {
  $<HTMLFormElement>('setup').onsubmit = (e) => {
    e.preventDefault()
    const c = configFromForm()
    nInput.value = ''
    open(c)
  }
  scenarioSelect.onchange = () => {
    nInput.value = ''
  }
  $<HTMLFormElement>('schedule-form').onsubmit = (e) => {
    e.preventDefault()
    try {
      const c = configFromForm()
      open({ ...c, steps: parseSteps(scheduleInput.value) })
    } catch (err) {
      showError(err instanceof Error ? err.message : String(err))
    }
  }
  $<HTMLButtonElement>('share').onclick = () => {
    writeUrl()
    void navigator.clipboard?.writeText(location.href).catch(() => {})
  }
  lessonSelect.onchange = () => {
    const lesson = lessonOf(lessonSelect.value)
    if (lesson) open({ ...lesson.config, steps: [], lesson: lesson.id, lang })
  }
  $<HTMLButtonElement>('lang').onclick = () => {
    lang = lang === 'pt' ? 'en' : 'pt'
    if (run) run.config.lang = lang
    show('lang')
  }
  $<HTMLButtonElement>('start').onclick = () => act(() => run?.goTo(0), 'start')
  $<HTMLButtonElement>('back').onclick = () => act(() => run?.back(), 'back')
  $<HTMLButtonElement>('forward').onclick = () => act(() => run?.forward(), 'forward')
  $<HTMLButtonElement>('end').onclick = () => act(() => run?.goTo(run.length), 'end')
  $<HTMLButtonElement>('run-end').onclick = () =>
    act(() => run?.run(RUN_TO_END_MAX, run.horizon), 'run to end')
  playButton.onclick = togglePlay
  $<HTMLButtonElement>('compare-close').onclick = () => {
    compared = undefined
    show('close compare')
  }
  scrub.oninput = () => act(() => run?.goTo(Number(scrub.value)), 'scrub')
  // Every steering button names its step.
  document.body.addEventListener('click', (e) => {
    const target = (e.target as HTMLElement).closest<HTMLElement>('button[data-step]')
    if (!target) return
    take(target.dataset.step!)
  })
  document.addEventListener('keydown', (e) => {
    if ((e.target as HTMLElement).closest('input, select, textarea')) return
    if (e.key === 'ArrowRight') act(() => run?.forward(), 'forward')
    else if (e.key === 'ArrowLeft') act(() => run?.back(), 'back')
    else if (e.key === 'Home') act(() => run?.goTo(0), 'start')
    else if (e.key === 'End') act(() => run?.goTo(run.length), 'end')
    else return
    e.preventDefault()
  })
}

/** What the tests read: the run, the timings, and the steps of any position. */
declare global {
  interface Window {
    lab: {
      run: () => LabRun | undefined
      timings: typeof timings
      take: (word: string) => void
      /** Draws the step shown afresh (the tests compare it with the drawing grown step by step). */
      redraw: () => void
    }
  }
}

export function start(): void {
  fillScenarios()
  wire()
  const redraw = () => {
    forgetLine()
    // The panels too, made afresh (the tests compare them with those kept from step to step).
    for (const id of ['pending', 'nodes', 'links']) $(id).replaceChildren()
    show('redraw')
  }
  window.lab = { run: () => run, timings, take, redraw }
  const query = location.search.slice(1)
  const params = new URLSearchParams(query)
  const lesson = lessonOf(params.get('lesson') ?? '')
  let config: LabConfig
  try {
    // `?lesson=bully` alone opens the lesson's run; with scenario= the address says it all.
    if (lesson && !params.has('scenario'))
      config = { ...lesson.config, steps: [], lesson: lesson.id }
    else config = query === '' ? defaultConfig('election-bully', 0) : decodeConfig(query)
  } catch (e) {
    showError(`Cannot read this address: ${e instanceof Error ? e.message : String(e)}`)
    return
  }
  const language = params.get('lang')
  if (language === 'pt' || language === 'en') config.lang = language
  open(config)
}

start()
