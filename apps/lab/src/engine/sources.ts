/**
 * A run's network, set up and not yet run, with the rule it follows by itself and its invariant.
 *
 * Run mode takes a playground scenario exactly as `sd run` builds it: `scenario.run` is called,
 * and its `net.run()` is caught (the network is set up then: nodes launched, requests and
 * faults planned) and the run stopped there (the last one, where a scenario runs a measuring pass
 * first); the lab then steps that network. Left alone, a step
 * is `net.step()`, the very loop of `net.run()`, so the run is `sd run`'s event for event.
 *
 * Check mode takes an `sd check` configuration as its explorer does (a fresh simulator, the
 * spec's setup), and left alone follows `replay`'s rule (the earliest choice, at its due time),
 * so a counterexample's schedule plays as `sd check` replays it.
 */
import { checks } from '@sd/playground/src/check/index.js'
import { parseClockSteps, parsePauses } from '@sd/playground/src/fault-plan.js'
import type { Scenario } from '@sd/playground/src/scenario.js'
import { scenarios } from '@sd/playground/src/scenarios/index.js'
import { sideStateOf } from '@sd/playground/src/side-state.js'
import {
  emitsOf,
  type FaultEvent,
  faultsOf,
  InvalidArgumentError,
  isRecord,
  type NodeId,
  type RunOptions,
  SimNetwork,
  type TimedEvent,
} from '@sd/transport'
import type { ExploreScenario } from '@sd/transport/explore'
import type { LabConfig } from './config.js'
import { judgeFor } from './invariants.js'

export interface Source {
  readonly net: SimNetwork
  /** Node ids by their text (steps name nodes as text). */
  readonly ids: ReadonlyMap<string, NodeId>
  /** Every event emitted so far, in order. */
  events(): readonly TimedEvent[]
  /**
   * What the run keeps beside the network (the scenario's side state, the lab's own), as plain
   * data, saved with each checkpoint; undefined when the run cannot be rewound.
   */
  save(): unknown
  /** The network was rewound to a checkpoint: put back what `save` gave then (refused if not). */
  restore(saved: unknown): void
  /** A chosen step was carried out, virtual time `before` it (the run's own rule may care). */
  stepped(before: number): void
  /** One step by the run's own rule; false when nothing is left to happen. */
  auto(): boolean
  /** The invariant after the last step: a sentence when broken. */
  judge(): string | undefined
  /** What the invariant is, for the page. */
  readonly invariant: string
  /** Where the scenario's own run stops (its `until`), or infinity. */
  readonly horizon: number
  /**
   * A checkpoint (`net.checkpoint()` and `save()`) can rewind this run exactly: check mode (the
   * explorer relies on it), where all state is the network's, and a playground scenario that
   * keeps its side state with `keepSideState`. Still only where every protocol has `restore()`.
   */
  readonly rewinds: boolean
}

/** The scenario names of each mode, in the playground's order. */
export const runScenarios: readonly Scenario[] = scenarios
export const checkScenarios = checks

export function nEffective(config: LabConfig): number {
  if (config.n > 0) return config.n
  if (config.mode === 'run') return scenarioOf(config.scenario).defaultN
  return checkOf(config.scenario).defaultN
}

export function scenarioOf(name: string): Scenario {
  const s = scenarios.find((x) => x.name === name)
  if (s === undefined) throw new Error(`no playground scenario ${JSON.stringify(name)}`)
  return s
}

function checkOf(name: string) {
  const c = checks.find((x) => x.scenario === name)
  if (c === undefined) throw new Error(`sd check has no scenario ${JSON.stringify(name)}`)
  return c
}

export function makeSource(config: LabConfig): Source {
  return config.mode === 'run' ? runSource(config) : checkSource(config)
}

/**
 * Networks a scenario runs to their end before the one `sd run` reports: the temporal-order
 * scenarios run the same seed twice, the first pass to measure the precision π that the second
 * pass's hold-back Δ is computed from. The lab takes the reported one.
 */
const EARLIER_PASSES: Readonly<Record<string, number>> = {
  'temporal-order': 1,
  'temporal-order-late': 1,
}

/** Thrown out of the scenario's `net.run()`: the network is set up, the lab takes it. */
class Caught extends Error {}

/** The playground scenario's network as `sd run` sets it up, stopped before its first event. */
export function captureScenario(config: LabConfig): { net: SimNetwork; until: number } {
  const scenario = scenarioOf(config.scenario)
  const n = nEffective(config)
  if (n < scenario.minN || n > scenario.maxN)
    throw new Error(`${scenario.name} takes n from ${scenario.minN} to ${scenario.maxN}`)
  const range = scenario.randomIds ? undefined : { first: scenario.firstId ?? 1, n }
  const faults = [
    ...(config.pause ? parsePauses(config.pause, range) : []),
    ...(config.clockStep ? parseClockSteps(config.clockStep, range) : []),
  ]
  const crash =
    config.crash.length === 0
      ? (scenario.defaultCrash ?? [])
      : config.crash[0] === 'none'
        ? []
        : config.crash.map((id) => (/^-?\d+$/.test(id) ? Number(id) : id))
  const proto = SimNetwork.prototype
  const original = proto.run
  let caught: { net: SimNetwork; until: number } | undefined
  let before = EARLIER_PASSES[scenario.name] ?? 0
  proto.run = function (this: SimNetwork, options?: RunOptions) {
    if (before-- > 0) return original.call(this, options)
    caught = { net: this, until: options?.until ?? Number.POSITIVE_INFINITY }
    throw new Caught()
  }
  try {
    scenario.run({ n, seed: config.seed, crash, faults })
  } catch (e) {
    if (!(e instanceof Caught)) throw e
  } finally {
    proto.run = original
  }
  if (caught === undefined) throw new Error(`${scenario.name} never ran its network`)
  return caught
}

function idsOf(net: SimNetwork): Map<string, NodeId> {
  return new Map(net.nodeIds.map((id) => [String(id), id]))
}

function runSource(config: LabConfig): Source {
  const { net, until } = captureScenario(config)
  const judged = judgeFor(config.scenario)
  // Emits and faults read from the trace as it grows (the scenario launched before the lab saw
  // the network), so that judging a step costs what the step added.
  let read = 0
  const events: TimedEvent[] = []
  const faults: FaultEvent[] = []
  const sync = () => {
    const trace = net.trace
    if (trace.length < read) {
      events.length = 0
      faults.length = 0
      read = 0
    }
    const fresh = trace.slice(read)
    events.push(...emitsOf(fresh))
    faults.push(...faultsOf(fresh))
    read = trace.length
    return events
  }
  /**
   * A chosen timer, request or action happens at its own time, which may be past events still
   * queued: until those are taken (at the present time, as `replay` does, so time never goes
   * back) the run's own loop waits. Only then is the queue searched, so a run left alone costs
   * one `net.step()` a step.
   */
  let mayBeLate = false
  // The scenario's own state beside the network, when it keeps it where a checkpoint can.
  const side = sideStateOf(net)
  return {
    net,
    ids: idsOf(net),
    events: sync,
    save: () => (side === undefined ? undefined : { scenario: side.save(), mayBeLate }),
    restore(saved) {
      if (side === undefined || !isRecord(saved) || typeof saved.mayBeLate !== 'boolean')
        throw new InvalidArgumentError('lab: not a saved state of this run')
      side.restore(saved.scenario)
      mayBeLate = saved.mayBeLate
      // Emits and faults are read from the trace again, as it now stands.
      read = 0
      events.length = 0
      faults.length = 0
    },
    stepped(before: number) {
      if (net.now > before) mayBeLate = true
    },
    auto() {
      if (mayBeLate) {
        let late: { key: string; t: number } | undefined
        for (const c of net.choices())
          if (c.t < net.now && (late === undefined || c.t < late.t)) late = c
        if (late !== undefined) return net.take(late.key, 'happen', 'due')
        mayBeLate = false
      }
      return net.step()
    },
    judge() {
      if (judged === undefined) return undefined
      sync()
      return judged.judge({
        events,
        faults,
        atEnd: () => net.choices().length === 0,
        trace: net.trace,
        ids: net.nodeIds,
      })
    },
    invariant: judged?.name ?? 'none for this scenario (its verdict comes with sd run)',
    horizon: until,
    rewinds: side !== undefined,
  }
}

function checkSource(config: LabConfig): Source {
  const spec = checkOf(config.scenario)
  const n = nEffective(config)
  if (n < spec.minN || n > spec.maxN)
    throw new Error(`sd check ${spec.scenario} takes n from ${spec.minN} to ${spec.maxN}`)
  const scenario: ExploreScenario = spec.build(n)
  // As the explorer's Execution: a fresh simulator, the events as emitted, the setup.
  const net = new SimNetwork({ seed: scenario.seed ?? 1, trace: true, fifo: scenario.fifo ?? true })
  const events: TimedEvent[] = []
  net.onEmit((node, event, t) => events.push({ node, t, event }))
  scenario.setup(net)
  // What the spec keeps beside the network (the faults an election spec saw happen), declared
  // once, for the explorer (`ExploreScenario.sideState`), which rewinds to saved states as well.
  const side = scenario.sideState
  return {
    net,
    ids: idsOf(net),
    events: () => events,
    // The network's state but the emits collected (a rewind drops those after it) and the
    // spec's side state.
    save: () => ({ events: events.length, spec: side?.save(net) ?? null }),
    restore(saved) {
      const kept = isRecord(saved) ? saved.events : undefined
      if (!Number.isSafeInteger(kept) || (kept as number) < 0 || (kept as number) > events.length)
        throw new InvalidArgumentError('lab: not a saved state of this run')
      side?.restore(net, (saved as { spec: unknown }).spec)
      events.length = kept as number
    },
    auto() {
      const next = net.choices('in-order')
      if (next.length === 0) return false
      let pick = next[0]!
      for (const c of next) if (c.t < pick.t) pick = c
      return net.take(pick.key, 'happen', 'due')
    },
    stepped() {},
    judge: () => scenario.invariant({ net, events }),
    invariant: `sd check ${spec.scenario}'s invariant`,
    horizon: Number.POSITIVE_INFINITY,
    rewinds: true,
  }
}
