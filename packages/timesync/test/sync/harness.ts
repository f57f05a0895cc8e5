/**
 * Runs a synchronizer in the simulator over drifting clocks and asymmetric random delays, with
 * the software clock of every node kept so the test can read it against true (virtual) time.
 * Not `runInSim` of @sd/transport/testing: each node's hardware clock is set before the nodes
 * start (`addNode` with its spec), which `runInSim`'s plan, run after the launch, cannot do
 * without recording a clock change the protocols would see. Events are typed all the same, by
 * `launch`'s `onEmit`.
 */
import {
  createRandom,
  type NodeId,
  type Protocol,
  SimNetwork,
  type SimNetworkOptions,
  type TimedEvent,
} from '@sd/transport'
import { DisciplinedClock } from '../../src/clock/disciplined.js'

export interface ClockSpec {
  offset: number
  drift: number
  /** The hardware tick (ms); default 0, an exact reading. */
  resolution?: number
}

export interface SyncRunOptions {
  seed: number
  /** Each node's hardware clock; default: offset uniform in ±maxOffsetMs, drift in ±maxDrift. */
  clockOf?: (id: NodeId, random: () => number) => ClockSpec
  maxOffsetMs?: number
  maxDrift?: number
  /** One-way delays: `min` plus up to `spread`, three times more spread from higher to lower ids. */
  minDelayMs?: number
  spreadMs?: number
  net?: SimNetworkOptions
  maxSlewRate?: number
  until: number
  plan?: (net: SimNetwork) => void
}

export interface SyncRun<Ev = unknown> {
  net: SimNetwork
  clocks: Map<NodeId, DisciplinedClock>
  specs: Map<NodeId, ClockSpec>
  /** What the nodes emitted, typed by the protocol's events (`ofType` picks one kind). */
  events: TimedEvent<Ev>[]
  /** Each node's software clock minus true time, now. */
  errors(): Map<NodeId, number>
}

export function runSync<Msg, Req, Ev>(
  ids: readonly NodeId[],
  make: (self: NodeId, clock: DisciplinedClock) => Protocol<Msg, Req, Ev>,
  options: SyncRunOptions,
): SyncRun<Ev> {
  const { minDelayMs = 1, spreadMs = 4, maxOffsetMs = 200, maxDrift = 1e-4 } = options
  const net = new SimNetwork({
    seed: options.seed,
    latency: (random, from, to) =>
      minDelayMs + random() * spreadMs * (Number(from) > Number(to) ? 3 : 1),
    fifo: false,
    ...options.net,
  })
  const pick = createRandom(`clocks/${options.seed}`).next
  const clocks = new Map<NodeId, DisciplinedClock>()
  const specs = new Map<NodeId, ClockSpec>()
  for (const id of ids) {
    const spec =
      options.clockOf?.(id, pick) ??
      ({
        offset: (2 * pick() - 1) * maxOffsetMs,
        drift: (2 * pick() - 1) * maxDrift,
      } satisfies ClockSpec)
    specs.set(id, spec)
    net.addNode(id, spec)
  }
  const events: TimedEvent<Ev>[] = []
  net.launch(
    ids,
    (self) => {
      const clock = new DisciplinedClock({ maxSlewRate: options.maxSlewRate ?? 0.01 })
      clocks.set(self, clock)
      return make(self, clock)
    },
    { onEmit: (node, event, t) => events.push({ node, t, event }) },
  )
  options.plan?.(net)
  net.run({ until: options.until })
  return {
    net,
    clocks,
    specs,
    events,
    errors() {
      const out = new Map<NodeId, number>()
      for (const id of ids) {
        if (net.isCrashed(id)) continue
        out.set(id, clocks.get(id)!.read(net.clockOf(id)) - net.now)
      }
      return out
    },
  }
}

/** Largest minus smallest. */
export function spread(values: Iterable<number>): number {
  let lo = Number.POSITIVE_INFINITY
  let hi = Number.NEGATIVE_INFINITY
  for (const v of values) {
    lo = Math.min(lo, v)
    hi = Math.max(hi, v)
  }
  return hi - lo
}
