import {
  type ComposedEvent,
  compose,
  createRandom,
  type NodeId,
  type Protocol,
} from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import type { BerkeleyEvent } from '../src/berkeley/events.js'
import { berkeley } from '../src/berkeley/protocol.js'
import type { TemporalEvent } from '../src/temporal/events.js'
import { temporalOrder } from '../src/temporal/protocol.js'
import { runSync, type SyncRun } from './sync/harness.js'

const IDS = [1, 2, 3, 4, 5]
const RHO = 1e-4
const PERIOD = 1000
const MIN_DELAY = 1
const SPREAD = 4
/** The delay bound D of the harness's links: min + 3 x spread the slow way. */
const D = MIN_DELAY + 3 * SPREAD

/** What a node emits: Berkeley's events as `sync`, temporal order's (payload: the broadcast's k) as `app`. */
type NodeEvent = ComposedEvent<{
  sync: Protocol<unknown, unknown, BerkeleyEvent>
  app: Protocol<unknown, unknown, TemporalEvent<number>>
}>

interface Delivery {
  node: NodeId
  key: string
  late: boolean
}

/** Berkeley every second, temporal order on the same clocks, broadcasts from t = 3 s. */
function run(
  seed: number,
  holdBackMs: number,
): { run: SyncRun<NodeEvent>; sent: Map<string, number>; delivered: Delivery[] } {
  const random = createRandom(`temporal/${seed}`).next
  const sent = new Map<string, number>()
  const result = runSync(
    IDS,
    (self, clock) =>
      compose({
        sync: berkeley({ master: 1, periodMs: PERIOD, minDelayMs: MIN_DELAY })(self, clock),
        app: temporalOrder<number>({ holdBackMs })(self, clock),
      }),
    {
      seed,
      maxOffsetMs: 50,
      maxDrift: RHO,
      minDelayMs: MIN_DELAY,
      spreadMs: SPREAD,
      maxSlewRate: 0.05,
      until: 9000,
      plan: (net) => {
        for (let k = 0; k < 60; k++) {
          const at = 3000 + random() * 5000
          const from = IDS[Math.floor(random() * IDS.length)]!
          sent.set(`${from}:${k}`, at)
          net.request(from, { proto: 'app', req: { type: 'broadcast', payload: k } }, at)
        }
      },
    },
  )
  const delivered: Delivery[] = []
  for (const { node, event } of result.events) {
    if (event.proto === 'app' && event.event.type === 'deliver')
      delivered.push({
        node,
        key: `${event.event.from}:${event.event.payload}`,
        late: event.event.late,
      })
  }
  return { run: result, sent, delivered }
}

/** The precision π the Berkeley rounds guarantee: their largest spread bound plus a period of drift. */
function precision(r: SyncRun<NodeEvent>): number {
  let bound = 0
  for (const { event } of r.events) {
    if (event.proto === 'sync' && event.event.type === 'berkeley-round')
      bound = Math.max(bound, event.event.spreadBoundMs)
  }
  return bound + 2 * RHO * PERIOD
}

const sequence = (delivered: Delivery[], node: NodeId, onTimeOnly = true) =>
  delivered.filter((d) => d.node === node && (!onTimeOnly || !d.late)).map((d) => d.key)

describe('temporal-order delivery', () => {
  it('with Δ = (1 + ρ) D + π: nothing late, one sequence everywhere, real-time order beyond π (many seeds)', () => {
    forSeeds(seedList(40), (seed) => {
      // π depends on the run; a first run with a generous Δ measures it, the second uses the bound.
      const pi = precision(run(seed, 1000).run)
      const holdBack = (1 + RHO) * D + pi
      const { sent, delivered } = run(seed, holdBack)
      expect(delivered.filter((d) => d.late)).toEqual([])
      const first = sequence(delivered, IDS[0]!)
      expect(first).toHaveLength(sent.size)
      for (const id of IDS) expect(sequence(delivered, id)).toEqual(first)
      const position = new Map(first.map((key, i) => [key, i]))
      for (const [a, ta] of sent)
        for (const [b, tb] of sent)
          if (tb - ta > pi / (1 - RHO)) expect(position.get(a)!).toBeLessThan(position.get(b)!)
    })
  })

  it('with Δ = 0: late messages are delivered, marked and counted; on-time ones keep one order', () => {
    forSeeds(seedList(20), (seed) => {
      const { sent, delivered } = run(seed, 0)
      const late = delivered.filter((d) => d.late)
      expect(late.length).toBeGreaterThan(0)
      // Nothing is dropped: every member gets every message, late or not.
      for (const id of IDS) expect(sequence(delivered, id, false)).toHaveLength(sent.size)
      // Two messages on time at two members are in the same order at both.
      for (const i of IDS)
        for (const j of IDS) {
          const atJ = new Set(sequence(delivered, j))
          const common = sequence(delivered, i).filter((k) => atJ.has(k))
          const atI = new Set(common)
          expect(sequence(delivered, j).filter((k) => atI.has(k))).toEqual(common)
        }
    })
  })

  it('refuses a negative hold-back', () => {
    expect(() => temporalOrder({ holdBackMs: -1 })).toThrow(/holdBackMs/)
  })
})
