import { createRandom, type NodeId, oneOf, type Random, shape } from '@sd/transport'
import { ofType, traceOfType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { type ComposedRun, rows, runComposed } from './support/election-lock.js'

/**
 * Issue 19: the composition the cluster runs (majority election + centralized lock with leases,
 * wired by electionToLock) under random pauses past the lease, partitions, crashes with restarts
 * and wall-clock steps. Safety from the global checker; liveness: once the last fault is over,
 * every acquire of a node (made since its last restart) enters within BOUND_MS.
 */
const BOUND_MS = 3000
const ASKS_UNTIL = 1500

/** A request entry of the trace that asks the lock child to acquire (`{ proto: 'lock', req }`). */
const isAcquire = shape({ req: shape({ type: oneOf('acquire') }) })

type Fault = (run: Parameters<Parameters<typeof runComposed>[2]>[0]) => number

/** One random fault starting at `at`; returns when it is over (healed, resumed, restarted). */
function randomFault(rnd: Random, ids: readonly NodeId[], at: number, leaseMs: number): Fault {
  const node = ids[rnd.int(0, ids.length - 1)]!
  switch (rnd.int(0, 3)) {
    case 0: {
      const ms = leaseMs + rnd.int(50, 600) // past the lease
      return ({ net }) => {
        net.at(at, () => net.pause(node))
        net.at(at + ms, () => net.resume(node))
        return at + ms
      }
    }
    case 1: {
      const cut = ids.filter(() => rnd.next() < 0.4)
      const ms = rnd.int(100, 800)
      return ({ net }) => {
        const rest = ids.filter((id) => !cut.includes(id))
        if (cut.length > 0 && rest.length > 0) net.at(at, () => net.partition(cut, rest))
        net.at(at + ms, () => net.heal())
        return at + ms
      }
    }
    case 2: {
      const ms = rnd.int(50, 600)
      return ({ net }) => {
        // Faults may overlap: a node already down is not crashed again, nor restarted twice.
        net.at(at, () => !net.isCrashed(node) && net.crash(node))
        net.at(at + ms, () => net.isCrashed(node) && net.restart(node))
        return at + ms
      }
    }
    default: {
      const delta = (rnd.next() < 0.5 ? -1 : 1) * rnd.int(100, 3000)
      return ({ net }) => {
        net.at(at, () => net.stepClock(node, delta))
        return at
      }
    }
  }
}

interface Plan {
  ids: NodeId[]
  leaseMs: number
  asks: Array<{ node: NodeId; at: number; hold: number }>
  faults: Fault[]
}

function planOf(seed: number): Plan {
  const rnd = createRandom(`centralized-election/${seed}`)
  const ids = Array.from({ length: rnd.next() < 0.5 ? 3 : 5 }, (_, i): NodeId => i + 1)
  const leaseMs = rnd.int(80, 300)
  const asks = Array.from({ length: rnd.int(4, 12) }, () => ({
    node: ids[rnd.int(0, ids.length - 1)]!,
    at: rnd.int(150, ASKS_UNTIL),
    hold: rnd.int(5, 60),
  }))
  const faults = Array.from({ length: rnd.int(1, 3) }, () =>
    randomFault(rnd, ids, rnd.int(200, ASKS_UNTIL), leaseMs),
  )
  return { ids, leaseMs, asks, faults }
}

function runPlan(seed: number, plan: Plan): { run: ComposedRun; quietAt: number } {
  let quietAt = ASKS_UNTIL
  const holdOf = new Map<string, number[]>()
  for (const a of plan.asks) {
    const list = holdOf.get(String(a.node)) ?? []
    list.push(a.hold)
    holdOf.set(String(a.node), list)
  }
  const run = runComposed(
    plan.ids,
    { leaseMs: plan.leaseMs, maxDelayMs: 20 },
    (r) => {
      for (const a of plan.asks) r.acquire(a.node, a.at)
      // Each entry is released after the hold of the ask it serves (the node's asks in order).
      r.onEmit((node, e, t) => {
        if (e.proto !== 'lock' || e.event.type !== 'acquired') return
        const hold = holdOf.get(String(node))?.shift() ?? 10
        r.release(node, t + hold)
      })
      for (const fault of plan.faults) quietAt = Math.max(quietAt, fault(r))
    },
    {
      until: 0, // replaced below
      net: { seed, fifo: seed % 2 === 0, latency: { kind: 'uniform', min: 1, max: 10 } },
      untilFrom: () => quietAt + BOUND_MS,
    },
  )
  return { run, quietAt }
}

describe('centralized + majority election under pauses, partitions, crashes and clock steps', () => {
  it('no two valid leases overlap, tokens rise across nodes, and every live acquire is served', () => {
    forSeeds(seedList(60), (seed) => {
      const plan = planOf(seed)
      const { run, quietAt } = runPlan(seed, plan)
      expect(run.verdict.violations, `seed ${seed}`).toEqual([])
      // Liveness: per node, the acquires made since its last restart all entered.
      const trace = run.net.trace
      for (const id of plan.ids) {
        const restarts = traceOfType(trace, 'restart').filter((e) => e.node === id)
        const since = restarts.at(-1)?.t ?? -1
        const asked = traceOfType(trace, 'request').filter(
          (e) => e.node === id && e.t > since && !e.dropped && isAcquire(e.req),
        ).length
        const entered = ofType(run.lock, 'acquired').filter(
          (e) => e.node === id && e.t > since,
        ).length
        expect(
          entered,
          `seed ${seed}: node ${id} entered ${entered} of ${asked} times by ${quietAt + BOUND_MS} (last fault over at ${quietAt})\n${rows(run.lock, 'acquired', 'lease-lost', 'coordinator-changed', 'coordinator-stopped', 'recovered').join('\n')}`,
        ).toBeGreaterThanOrEqual(asked)
      }
    })
  })
})
