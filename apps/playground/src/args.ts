import { parseArgs } from 'node:util'
import type { NodeId } from '@sd/transport'
import { type PlannedFault, parseClockSteps, parsePauses } from './fault-plan.js'
import type { FaultSupport, Scenario } from './scenario.js'
import { scenarios } from './scenarios/index.js'
import { checkTraceTarget } from './trace-file.js'
import { UsageError } from './usage.js'

/** What `sd run` was asked for, checked. */
export interface RunRequest {
  scenario: Scenario
  n: number
  seed: number
  crash: NodeId[]
  /** `--pause` and `--clock-step`, in the order given. */
  faults: PlannedFault[]
  json: boolean
  /** A file, or `-` for stdout. */
  trace: string | undefined
  rows: number
  /** Columns the diagram must fit in; undefined: the terminal's. */
  width: number | undefined
  legend: boolean
  /** Draw only this child of a composed protocol. */
  proto: string | undefined
}

/** `sd run ... --help`: print help instead of running. */
export interface HelpRequest {
  help: true
  scenario: Scenario | undefined
}

const OPTIONS = {
  n: { type: 'string' },
  seed: { type: 'string' },
  crash: { type: 'string' },
  pause: { type: 'string' },
  'clock-step': { type: 'string' },
  json: { type: 'boolean' },
  trace: { type: 'string' },
  rows: { type: 'string' },
  width: { type: 'string' },
  legend: { type: 'boolean' },
  proto: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

export function parseRun(args: readonly string[]): RunRequest | HelpRequest {
  const { values, positionals } = parseArgs({
    args: joinNegativeValues(args, OPTIONS),
    allowPositionals: true,
    strict: true,
    options: OPTIONS,
  })
  if (values.help)
    return { help: true, scenario: positionals.length === 1 ? find(positionals[0]!) : undefined }
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length
        ? `run takes one scenario, got ${positionals.join(' ')}`
        : 'run needs a scenario name (see sd list)',
    )
  const scenario = find(positionals[0]!)
  const n = values.n === undefined ? scenario.defaultN : integer('--n', values.n)
  if (n < scenario.minN || n > scenario.maxN)
    throw new UsageError(
      `--n for ${scenario.name} must be in ${scenario.minN}..${scenario.maxN}, got ${n}`,
    )
  if (values.crash !== undefined && scenario.crashes === undefined)
    throw new UsageError(`${scenario.name} does not take --crash: it has no failures to show`)
  const first = scenario.firstId ?? 1
  const faults: PlannedFault[] = []
  if (values.pause !== undefined) {
    refusedBy(scenario, 'pause')
    faults.push(...parsePauses(values.pause, scenario.randomIds ? undefined : { first, n }))
  }
  if (values['clock-step'] !== undefined) {
    refusedBy(scenario, 'clockStep')
    faults.push(
      ...parseClockSteps(values['clock-step'], scenario.randomIds ? undefined : { first, n }),
    )
  }
  if (values.trace !== undefined) checkTraceTarget(values.trace)
  if (values.json && values.trace === '-')
    throw new UsageError('--json and --trace - both write to stdout: write the trace to a file')
  return {
    scenario,
    n,
    seed: values.seed === undefined ? 1 : seed(values.seed),
    crash:
      values.crash === undefined
        ? defaultCrash(scenario, n)
        : values.crash === 'none'
          ? []
          : crashIds(values.crash, first, n),
    faults,
    json: values.json ?? false,
    trace: values.trace,
    rows: values.rows === undefined ? 400 : ranged('--rows', values.rows, 0, 1_000_000),
    width: parseWidth(values.width),
    legend: values.legend ?? false,
    proto: protoName(values.proto),
  }
}

/** A run of `scenario` with every option at its default (what `sd tour` runs). */
export function defaults(scenario: Scenario): RunRequest {
  return {
    scenario,
    n: scenario.defaultN,
    seed: 1,
    crash: defaultCrash(scenario, scenario.defaultN),
    faults: [],
    json: false,
    trace: undefined,
    rows: 400,
    width: undefined,
    legend: false,
    proto: undefined,
  }
}

/** `--width N`, shared with `sd tour`. */
export function parseWidth(text: string | undefined): number | undefined {
  return text === undefined ? undefined : ranged('--width', text, 20, 10_000)
}

/**
 * parseArgs refuses `--seed -5` as ambiguous (`-5` looks like an option). A value that is a
 * negative number, right after an option that takes a value, is joined to it: `--seed=-5`.
 */
export function joinNegativeValues(
  args: readonly string[],
  options: Record<string, { type: 'string' | 'boolean' }>,
): string[] {
  const out: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--') {
      out.push(...args.slice(i))
      break
    }
    const next = args[i + 1]
    const takesValue = arg.startsWith('--') && options[arg.slice(2)]?.type === 'string'
    if (takesValue && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`)
      i++
    } else {
      out.push(arg)
    }
  }
  return out
}

export function find(name: string): Scenario {
  const scenario = scenarios.find((s) => s.name === name)
  if (!scenario)
    throw new UsageError(
      `unknown scenario ${JSON.stringify(name)}; known: ${scenarios.map((s) => s.name).join(', ')}`,
    )
  return scenario
}

function integer(flag: string, text: string): number {
  if (!/^-?\d+$/.test(text))
    throw new UsageError(`${flag} takes an integer, got ${JSON.stringify(text)}`)
  return Number(text)
}

function ranged(flag: string, text: string, min: number, max: number): number {
  const value = integer(flag, text)
  if (value < min || value > max)
    throw new UsageError(`${flag} must be in ${min}..${max}, got ${text}`)
  return value
}

/** Beyond 2^53 integers lose precision: `--seed 9007199254740993` would silently run another seed. */
function seed(text: string): number {
  const value = integer('--seed', text)
  if (!Number.isSafeInteger(value))
    throw new UsageError(
      `--seed ${text} is not a safe integer (|S| must be at most 2^53 - 1 = ${Number.MAX_SAFE_INTEGER}): it would be rounded to ${value}, another seed`,
    )
  return value
}

/** `--proto NAME`: a child's name as `compose` allows it (`app/lock` for a nested one). */
function protoName(text: string | undefined): string | undefined {
  if (text === undefined) return undefined
  if (text === '' || text.startsWith('/') || text.endsWith('/') || text.includes('//'))
    throw new UsageError(
      `--proto takes a protocol name such as lock or app/lock, got ${JSON.stringify(text)}`,
    )
  return text
}

/** The crash a scenario's story needs when --crash is not given (mutex-centralized's failover). */
function defaultCrash(scenario: Scenario, n: number): NodeId[] {
  const first = scenario.firstId ?? 1
  return (scenario.defaultCrash ?? []).filter(
    (id) => typeof id === 'number' && id >= first && id < first + n,
  )
}

function crashIds(text: string, first: number, n: number): NodeId[] {
  const last = first + n - 1
  const ids: NodeId[] = []
  for (const part of text.split(',')) {
    const id = integer('--crash', part.trim())
    if (id < first || id > last)
      throw new UsageError(`--crash: node ${id} is not in ${first}..${last}`)
    if (ids.includes(id)) throw new UsageError(`--crash lists node ${id} twice`)
    ids.push(id)
  }
  return ids
}

/** How `scenario` takes `--pause` or `--clock-step`: its own words, or the default refusal. */
export function faultSupport(scenario: Scenario, kind: 'pause' | 'clockStep'): FaultSupport {
  const own = scenario[kind]
  if (own) return own
  return kind === 'pause'
    ? { refuses: 'this scenario runs a fixed plan of faults of its own' }
    : {
        refuses:
          'no protocol of this scenario reads the wall clock (ctx.now()), so a step would change nothing; mutex-centralized, make and the timesync scenarios take it',
      }
}

function refusedBy(scenario: Scenario, kind: 'pause' | 'clockStep'): void {
  const support = faultSupport(scenario, kind)
  if ('refuses' in support)
    throw new UsageError(
      `${scenario.name} does not take --${kind === 'pause' ? 'pause' : 'clock-step'}: ${support.refuses}`,
    )
}
