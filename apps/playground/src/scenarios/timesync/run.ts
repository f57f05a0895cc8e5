/**
 * Shared by the @sd/timesync scenarios: drifting hardware clocks, asymmetric random delays, and a
 * software clock per node kept outside the protocol, so the run can read every node's clock
 * against true (virtual) time, which no node can.
 */
import { DisciplinedClock } from '@sd/timesync'
import {
  arrayOf,
  createRandom,
  isFiniteNumber,
  isNodeId,
  isRecord,
  isString,
  type NodeId,
  oneOf,
  type Protocol,
  SimNetwork,
  shape,
  type TimedEvent,
  type TraceEvent,
} from '@sd/transport'
import { faultsEnd, type PlannedFault, planFaults } from '../../fault-plan.js'
import type { FaultSupport, Liveness, Unfinished } from '../../scenario.js'
import {
  appendOnly,
  keepSideState,
  NO_SIDE_STATE,
  type SideState,
  together,
} from '../../side-state.js'
import { clocksSideState } from './clocks-side-state.js'

/** The clocks' largest rate error ρ: 100 ppm, a generous quartz, so drift shows in seconds. */
export const RHO = 1e-4
/** One-way delays: MIN plus up to SPREAD from a lower id to a higher one, 3 × SPREAD back. */
export const MIN_DELAY_MS = 1
export const SPREAD_MS = 4
/** D: the delay bound of these links. */
export const D_MS = MIN_DELAY_MS + 3 * SPREAD_MS
/** How fast a software clock may slew: 5% (Linux adjtime allows 0.05%; 100 × faster to fit a short run). */
export const MAX_SLEW_RATE = 0.05

export const LINKS = `One-way delays are ${MIN_DELAY_MS} ms plus up to ${SPREAD_MS} ms from a lower id to a higher one and up to ${3 * SPREAD_MS} ms the other way (asymmetric, so half the round trip is a biased guess; D = ${D_MS} ms), not FIFO.`

export const DISCIPLINE = `Software clocks slew at most ${MAX_SLEW_RATE * 100}% (1 ms per ${1 / MAX_SLEW_RATE} ms; real kernels allow 0.05%) and step only forward, beyond 128 ms.`

export interface ClockSpec {
  /** The hardware clock minus true time at t = 0 (ms). */
  offset: number
  /** Its rate error. */
  drift: number
}

/** Uniform in ±max. */
export const around = (random: () => number, max: number) => (2 * random() - 1) * max

/** An event as the run saw it, typed by the protocol's events (`ofType` narrows a list of them). */
export type TimedEmit<Ev> = TimedEvent<Ev>

export interface SyncPlan<Msg, Req, Ev> {
  ids: NodeId[]
  seed: number
  /** A name for the scenario's random streams. */
  name: string
  clockOf: (id: NodeId, random: () => number) => ClockSpec
  make: (self: NodeId, clock: DisciplinedClock) => Protocol<Msg, Req, Ev>
  /** Down from the start. */
  crash: readonly NodeId[]
  until: number
  /** `--pause` / `--clock-step`; the run lasts at least a second past the last one. */
  faults?: readonly PlannedFault[]
  plan?: (net: SimNetwork, live: NodeId[]) => void
  /** Sees every event when it is emitted, with every node's software clock readable then. */
  observe?: (emit: TimedEmit<Ev>, clockOf: (id: NodeId) => number) => void
  /** What `observe` collects, kept with the run's own side state so that the lab can rewind. */
  observed?: SideState
}

export interface SyncRun<Ev> {
  net: SimNetwork
  ids: NodeId[]
  live: NodeId[]
  specs: Map<NodeId, ClockSpec>
  events: TimedEmit<Ev>[]
  /** A node's software clock now. */
  clockOf(id: NodeId): number
  /** Each live node's software clock minus true time, now. */
  errors(): Map<NodeId, number>
  /** Live nodes whose software clock is still slewing now. */
  slewing(): NodeId[]
}

export function runSync<Msg, Req, Ev>(plan: SyncPlan<Msg, Req, Ev>): SyncRun<Ev> {
  const net = new SimNetwork({
    seed: plan.seed,
    latency: (random, from, to) =>
      MIN_DELAY_MS + random() * SPREAD_MS * (Number(from) > Number(to) ? 3 : 1),
    fifo: false,
  })
  const pick = createRandom(`${plan.name}/clocks/${plan.seed}`).next
  const specs = new Map<NodeId, ClockSpec>()
  for (const id of plan.ids) {
    const spec = plan.clockOf(id, pick)
    specs.set(id, spec)
    net.addNode(id, spec)
  }
  // One software clock per incarnation (a restarted machine would start over from its hardware).
  const clocks = new Map<NodeId, DisciplinedClock>()
  const newClock = () => new DisciplinedClock({ maxSlewRate: MAX_SLEW_RATE })
  const clockOf = (id: NodeId) => {
    let clock = clocks.get(id)
    if (clock === undefined) {
      clock = newClock()
      clocks.set(id, clock)
    }
    return clock.read(net.clockOf(id))
  }
  const events: TimedEmit<Ev>[] = []
  const onEmit = (node: NodeId, event: Ev, t: number) => {
    const emit = { node, t, event }
    events.push(emit)
    plan.observe?.(emit, clockOf)
  }
  net.launch(
    plan.ids,
    (self) => {
      const clock = newClock()
      clocks.set(self, clock)
      return plan.make(self, clock)
    },
    { onEmit },
  )
  // The events, the clocks and what `observe` collects: a checkpoint's side (see side-state.ts).
  keepSideState(
    net,
    together([
      appendOnly([events]),
      clocksSideState(clocks, newClock),
      plan.observed ?? NO_SIDE_STATE,
    ]),
  )
  for (const id of plan.crash) net.crash(id)
  const live = plan.ids.filter((id) => !plan.crash.includes(id))
  plan.plan?.(net, live)
  const faults = plan.faults ?? []
  planFaults(net, faults)
  net.run({ until: faults.length ? Math.max(plan.until, faultsEnd(faults) + 1000) : plan.until })
  return {
    net,
    ids: plan.ids,
    live,
    specs,
    events,
    clockOf,
    errors() {
      const out = new Map<NodeId, number>()
      for (const id of live) out.set(id, clockOf(id) - net.now)
      return out
    },
    slewing() {
      return live.filter((id) => clocks.get(id)?.slewing(net.clockOf(id)) === true)
    },
  }
}

/** --clock-step in the clock synchronization scenarios. */
export const CLOCK_STEP: FaultSupport = {
  accepts:
    "steps the node's hardware clock (what its software clock reads through): the next correction must bring it back; a step after the last one shows as an error beyond the bound at the end (a violation, as it should)",
}

/** --pause in the clock synchronization scenarios. */
export const PAUSE: FaultSupport = {
  accepts:
    'a paused node answers and corrects nothing until its resume (its clock drifts on); a round that needs it waits or gives up; the run lasts at least a second past the last resume',
}

/**
 * Sync converges: every live client had its clock corrected at least once. `blocked` says why a
 * client cannot be, by design (its server down), or undefined.
 */
export function syncLiveness(
  unsynced: readonly NodeId[],
  blocked: (id: NodeId) => string | undefined,
): Liveness {
  const unfinished: Unfinished[] = unsynced.map((id) => {
    const why = blocked(id)
    return {
      node: id,
      what: `the clock of node ${String(id)}`,
      why: why ?? 'never corrected: no round or poll of it succeeded before the run ended',
      expected: why !== undefined,
    }
  })
  return { property: 'clocks converge: every live client is corrected at least once', unfinished }
}

/** Largest minus smallest; null for no values. */
export function spread(values: Iterable<number>): number | null {
  let lo = Number.POSITIVE_INFINITY
  let hi = Number.NEGATIVE_INFINITY
  for (const v of values) {
    lo = Math.min(lo, v)
    hi = Math.max(hi, v)
  }
  return hi >= lo ? hi - lo : null
}

/** Milliseconds to the microsecond, for the JSON result. */
export function ms(x: number): number {
  return Math.round(x * 1000) / 1000
}

export function msOrNull(x: number | null): number | null {
  return x === null ? null : ms(x)
}

/** By node id, in microseconds-rounded ms. */
export function byNode(values: Iterable<[NodeId, number]>): Record<string, number> {
  const out: Record<string, number> = {}
  for (const [id, v] of values) out[String(id)] = ms(v)
  return out
}

/** Each node's hardware clock minus true time at t = 0. */
export function offsetsAtStart(run: SyncRun<unknown>): Map<NodeId, number> {
  return new Map(run.ids.map((id) => [id, run.specs.get(id)!.offset]))
}

/** `+12.345`, `-0.5`: a signed figure for the diagram. */
export function signed(x: number, digits = 3): string {
  const s = x.toFixed(digits).replace(/\.?0+$/, '')
  return x > 0 ? `+${s}` : s === '-0' ? '0' : s
}

/**
 * A synchronizer's event from a trace, unwrapped from `compose` if it carries a child's name. A
 * trace entry's event is unknown: the guards below read only what fits.
 */
export function innerEvent(event: unknown): unknown {
  return isRecord(event) && typeof event.proto === 'string' && isRecord(event.event)
    ? event.event
    : event
}

const isAdjusted = shape({
  type: oneOf('adjusted'),
  offsetMs: isFiniteNumber,
  errorBoundMs: isFiniteNumber,
  kind: isString,
})
/** A list of node ids, as a trace's events carry them. */
export const isNodeIds = arrayOf(isNodeId)
const isBerkeleyRound = shape({
  type: oneOf('berkeley-round'),
  round: isFiniteNumber,
  averageMs: isFiniteNumber,
  ignored: isNodeIds,
  silent: isNodeIds,
  spreadBoundMs: isFiniteNumber,
})

/** Words for the diagram: what a synchronizer's event means, before its raw JSON. */
export function describeSyncEvent(entry: TraceEvent): string | undefined {
  if (entry.type !== 'emit') return undefined
  const e = innerEvent(entry.event)
  if (isAdjusted(e)) return `${signed(e.offsetMs)} ms ±${e.errorBoundMs.toFixed(3)} (${e.kind})`
  if (isRecord(e) && e.type === 'sync-failed') return 'no answer: clock left alone'
  if (isBerkeleyRound(e))
    return [
      `round ${String(e.round)}: average ${signed(e.averageMs)} ms`,
      e.ignored.length > 0 ? `ignores ${e.ignored.join(',')}` : '',
      e.silent.length > 0 ? `silent ${e.silent.join(',')}` : '',
      `spread ≤ ${e.spreadBoundMs.toFixed(3)} ms`,
    ]
      .filter((part) => part !== '')
      .join(', ')
  return undefined
}
