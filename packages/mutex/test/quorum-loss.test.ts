import { createRandom, type SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { seedList } from '../../../test-support/seeds.js'
import { quorumMutex } from '../src/quorum/index.js'
import { randomAsks, runMutex } from './support/harness.js'
import { coordinators } from './support/quorum-runs.js'

// Issue 19, finding 4: a RELEASE sent once, or a GRANT lost before its client saw it, left a
// coordinator bound to a round that was over, and the resource taken for good. These runs lose
// (and duplicate, and reorder) messages on every link and check that every acquire is served.
const clients = ['p1', 'p2', 'p3']
const everyone = [...coordinators, ...clients]

interface Lossy {
  loss: number
  duplicate?: number
  /** Coordinators crash at random and come back 1..20 ms later (durable grants remember). */
  restarts?: boolean
}

const restarts = (seed: number) => (net: SimNetwork) => {
  const random = createRandom(`lossy-restarts/${seed}`).next
  for (let i = 0; i < 8; i++) {
    const node = coordinators[Math.floor(random() * coordinators.length)]!
    const at = Math.floor(random() * 500)
    const down = 1 + Math.floor(random() * 20)
    net.at(at, () => {
      if (net.isCrashed(node)) return
      net.crash(node)
      net.at(at + down, () => net.restart(node))
    })
  }
}

const lossyRun = (seed: number, { restarts: withRestarts, ...net }: Lossy) =>
  runMutex(
    everyone,
    quorumMutex({ coordinators, m: 3, durableGrants: true }),
    randomAsks(clients, createRandom(`lossy-asks/${seed}`).next, 12, 500, 10),
    {
      seed,
      net: { latency: { kind: 'uniform', min: 1, max: 10 }, fifo: false, ...net },
      faults: withRestarts ? restarts(seed) : undefined,
      // Far beyond the last ask: a stuck grant stays stuck, a slow run still finishes.
      until: 60_000,
    },
  )

/** Seeds whose run left an acquire unserved or broke mutual exclusion, with what went wrong. */
function failures(seeds: readonly number[], net: Lossy): string[] {
  const failed: string[] = []
  for (const seed of seeds) {
    const run = lossyRun(seed, net)
    if (run.granted !== run.asked) failed.push(`seed ${seed}: ${run.granted}/${run.asked} served`)
    if (run.violations.length > 0) failed.push(`seed ${seed}: ${run.violations.join('; ')}`)
  }
  return failed
}

describe('quorumMutex: message loss (durable grants, non-FIFO links)', () => {
  it('serves every acquire of every client at 10% loss, and never lets two in', () => {
    const failed = failures(seedList(200), { loss: 0.1 })
    expect(failed, `failing seeds:\n${failed.join('\n')}`).toEqual([])
  })

  it('the same at 10% loss with 10% of messages duplicated', () => {
    const failed = failures(seedList(100), { loss: 0.1, duplicate: 0.1 })
    expect(failed, `failing seeds:\n${failed.join('\n')}`).toEqual([])
  })

  it('the same at 10% loss while coordinators crash and restart', () => {
    const failed = failures(seedList(100), { loss: 0.1, restarts: true })
    expect(failed, `failing seeds:\n${failed.join('\n')}`).toEqual([])
  })
})
