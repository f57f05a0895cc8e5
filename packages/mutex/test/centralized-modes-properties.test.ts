import { createRandom, type NodeId, type Protocol } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import {
  type CentralizedEvent,
  type CentralizedMessage,
  type CentralizedOptions,
  type CentralizedRequest,
  centralized,
} from '../src/centralized/index.js'
import {
  type Factory,
  modeAsks,
  randomFaults,
  runModes,
  type Workload,
} from './support/mode-runs.js'

const LEASES: CentralizedOptions = { leaseMs: 60, maxDelayMs: 30, resendEveryMs: 50 }

/** One seeded run: 3 to 5 nodes, asks over 600 ms, faults until 900 ms, judged at 8 s. */
function run(
  seed: number,
  workload: Workload,
  options: CentralizedOptions,
  protocol: Factory = centralized(options),
  steal = true,
) {
  const rnd = createRandom(`modes-${workload}-${seed}`)
  const ids = Array.from({ length: rnd.int(3, 5) }, (_, i) => i + 1)
  const asks = modeAsks(rnd, ids, workload, {
    count: rnd.int(5, 30),
    spanMs: 600,
    maxHold: 40,
    steal,
  })
  return runModes(ids, protocol, asks, {
    seed,
    faults: randomFaults(rnd, ids, 900),
    until: 8000,
    loss: rnd.next() < 0.5 ? 0.05 : 0,
    duplicate: rnd.next() < 0.5 ? 0.05 : 0,
  })
}

describe('centralized with shared entries, permits, ifAvailable and steal: properties', () => {
  const cases: Array<[Workload, CentralizedOptions]> = [
    ['readers-writers', { ...LEASES }],
    ['readers-writers', { ...LEASES, readers: 'writers-first' }],
    ['readers-writers', { ...LEASES, readers: 'readers-first', lockDelayMs: 30 }],
    ['readers-writers', { ...LEASES, whenBusy: 'deny', retryBaseMs: 2, retryMaxMs: 30 }],
    ['readers-writers', { ...LEASES, burst: 3 }],
    ['readers-writers', { ...LEASES, readers: 'writers-first', burst: 4 }],
    ['permits', { ...LEASES }],
    ['permits', { ...LEASES, lockDelayMs: 30 }],
  ]
  for (const [workload, options] of cases) {
    it(`${workload} ${JSON.stringify(options)}: no overlap, tokens rising, every live acquire answered`, () => {
      let entries = 0
      let steals = 0
      forSeeds(seedList(60), (seed) => {
        const r = run(seed, workload, options)
        // Judged as they happened: a steal's victims are over before its stealer enters.
        expect(r.violations).toEqual([])
        expect(r.answered).toBe(r.asked)
        entries += r.entries
        steals += r.events.filter((e) => e.event.type === 'stolen').length
      })
      expect(entries).toBeGreaterThan(0)
      expect(steals).toBeGreaterThan(0)
    })
  }

  it('without leases and without crashes of holders, shared and permits keep safety', () => {
    forSeeds(seedList(40), (seed) => {
      const rnd = createRandom(`modes-noleases-${seed}`)
      const ids = [1, 2, 3, 4]
      const workload: Workload = seed % 2 === 0 ? 'permits' : 'readers-writers'
      const asks = modeAsks(rnd, ids, workload, {
        count: 20,
        spanMs: 400,
        maxHold: 30,
        steal: false,
      })
      const r = runModes(ids, centralized(), asks, { seed, until: 5000, duplicate: 0.05 })
      expect(r.violations).toEqual([])
      expect(r.answered).toBe(r.asked)
    })
  })
})

/** A coordinator that counts every permit request as 1 permit, and every writer as a reader. */
function brokenCoordinator(options: CentralizedOptions) {
  const inner = centralized(options)
  return (self: NodeId): Protocol<CentralizedMessage, CentralizedRequest, CentralizedEvent> => {
    const p = inner(self)
    return {
      ...p,
      onMessage(from, msg, ctx) {
        const m = msg as CentralizedMessage
        if (m.type === 'request' && m.steal !== true) {
          const forged = m.permits
            ? { ...m, permits: { take: 1, of: m.permits.of } }
            : { ...m, mode: 'shared' as const }
          p.onMessage(from, forged, ctx)
        } else p.onMessage(from, msg, ctx)
      },
    }
  }
}

describe('the properties can fail', () => {
  for (const workload of ['readers-writers', 'permits'] as const) {
    it(`a coordinator that miscounts (${workload}) is caught`, () => {
      let caught = 0
      for (const seed of seedList(30)) {
        const r = run(seed, workload, LEASES, brokenCoordinator(LEASES), false)
        if (r.violations.length > 0) caught++
      }
      expect(caught).toBeGreaterThan(0)
    })
  }
})
