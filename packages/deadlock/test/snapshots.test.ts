import { runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { seedList } from '../../../test-support/seeds.js'
import {
  expectSoundSnapshots,
  recordingSnapshots,
  text,
} from '../../../test-support/snapshot-contract.js'
import { type ResourceManagerOptions, resourceManager } from '../src/manager/index.js'
import { LockTable } from '../src/manager/lock-table.js'
import { randomWorkload } from './support/workload.js'

const STRATEGIES: ResourceManagerOptions['strategy'][] = [
  { kind: 'chandy-misra-haas' },
  { kind: 'centralized', coordinator: 1, periodMs: 15 },
  { kind: 'prevention', rule: 'wait-die' },
  { kind: 'prevention', rule: 'wound-wait' },
  { kind: 'none' },
]

describe.each(STRATEGIES.map((s) => [s.kind === 'prevention' ? s.rule : s.kind, s] as const))(
  'resource manager (%s) snapshots in simulated runs',
  (_name, strategy) => {
    /** A random lock workload on reordering links; each site's snapshots after every step. */
    const run = (seed: number) => {
      const workload = randomWorkload(seed)
      const rec = recordingSnapshots(resourceManager({ ...workload, strategy }))
      runInSim(workload.sites, rec.factory, {
        seed,
        net: { latency: { kind: 'uniform', min: 1, max: 8 }, fifo: false, trace: false },
        until: 1_000,
      })
      return rec
    }

    it('are plain, unshared and deterministic after every step, over many seeds', () => {
      expectSoundSnapshots(seedList(25), run)
    })
  },
)

describe('resource manager snapshots are canonical', () => {
  const waiter = (id: string, req = 1) => ({ proc: { id, home: 1, timestamp: 0 }, req })

  it('locks taken in either order give one snapshot; a freed lock is as if never used', () => {
    const a = new LockTable()
    const b = new LockTable()
    a.request('r2', waiter('p'))
    a.request('r1', waiter('q'))
    b.request('r1', waiter('q'))
    b.request('r2', waiter('p'))
    expect(text(a.snapshot())).toBe(text(b.snapshot()))
    const before = text(a.snapshot())
    a.request('r3', waiter('p', 2))
    expect(text(a.snapshot())).not.toBe(before)
    a.remove('r3', 'p', 2)
    expect(text(a.snapshot())).toBe(before)
  })

  it('a queue keeps its order: who waits first is state', () => {
    const a = new LockTable()
    const b = new LockTable()
    a.request('r', waiter('h'))
    b.request('r', waiter('h'))
    a.request('r', waiter('p'))
    a.request('r', waiter('q'))
    b.request('r', waiter('q'))
    b.request('r', waiter('p'))
    expect(text(a.snapshot())).not.toBe(text(b.snapshot()))
  })
})
