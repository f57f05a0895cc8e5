/**
 * What a lab run is made of, and its URL: the scenario (an `sd run` one, or an `sd check` one
 * for counterexamples), n, the seed, the faults `sd run` takes, and the steps taken. Opening the
 * URL replays the same run: the simulator is deterministic given all of these.
 */
import { formatSteps, parseSteps, type Step } from './steps.js'

export interface LabConfig {
  /** `run`: a playground scenario as `sd run` runs it; `check`: an `sd check` configuration. */
  mode: 'run' | 'check'
  scenario: string
  n: number
  seed: number
  /** `sd run --crash` (run mode): node ids, as text. */
  crash: string[]
  /** `sd run --pause` (run mode), as written there: `2@50+100,3@10+20`; empty for none. */
  pause: string
  /** `sd run --clock-step` (run mode): `1@40:-500`; empty for none. */
  clockStep: string
  steps: Step[]
  /** The lesson being followed, if one. */
  lesson?: string
  /** The lesson's language. */
  lang?: 'pt' | 'en'
}

export function defaultConfig(scenario: string, n: number): LabConfig {
  return { mode: 'run', scenario, n, seed: 1, crash: [], pause: '', clockStep: '', steps: [] }
}

/** The query string of a run (without `?`), only the fields that differ from a fresh run. */
export function encodeConfig(c: LabConfig): string {
  const p = new URLSearchParams()
  if (c.mode === 'check') p.set('mode', 'check')
  p.set('scenario', c.scenario)
  p.set('n', String(c.n))
  p.set('seed', String(c.seed))
  if (c.crash.length > 0) p.set('crash', c.crash.join(','))
  if (c.pause !== '') p.set('pause', c.pause)
  if (c.clockStep !== '') p.set('clock', c.clockStep)
  if (c.steps.length > 0) p.set('steps', formatSteps(c.steps))
  if (c.lesson !== undefined) p.set('lesson', c.lesson)
  if (c.lang !== undefined) p.set('lang', c.lang)
  return p.toString()
}

export class ConfigError extends Error {}

/**
 * The run a query string names; `schedule=` (what `sd check` prints) is taken as the steps of a
 * check-mode run. Throws `ConfigError` (or the steps' syntax error) on what it cannot read.
 */
export function decodeConfig(query: string): LabConfig {
  const p = new URLSearchParams(query)
  const scenario = p.get('scenario')
  if (scenario === null || scenario === '') throw new ConfigError('no scenario= in the address')
  const schedule = p.get('schedule')
  const mode = p.get('mode') === 'check' || schedule !== null ? 'check' : 'run'
  const n = integer(p, 'n', 0)
  const seed = integer(p, 'seed', 1)
  const crash = (p.get('crash') ?? '').split(',').filter((s) => s !== '')
  const config: LabConfig = {
    mode,
    scenario,
    n,
    seed,
    crash,
    pause: p.get('pause') ?? '',
    clockStep: p.get('clock') ?? '',
    steps: parseSteps(`${schedule ?? ''} ${p.get('steps') ?? ''}`),
  }
  const lesson = p.get('lesson')
  if (lesson !== null) config.lesson = lesson
  const lang = p.get('lang')
  if (lang === 'pt' || lang === 'en') config.lang = lang
  return config
}

function integer(p: URLSearchParams, name: string, fallback: number): number {
  const text = p.get(name)
  if (text === null || text === '') return fallback
  const value = Number(text)
  if (!Number.isSafeInteger(value)) throw new ConfigError(`${name}=${text} is not an integer`)
  return value
}
