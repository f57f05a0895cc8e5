import { createRandom, type SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { quorumMutex } from '../src/quorum/index.js'
import { type Ask, randomAsks, runMutex } from './support/harness.js'

// The texts' scenario with n = 5, m = 3: a holds {c1, c2, c3}; c3 restarts and forgets; b gets
// {c3, c4, c5}. Latency is 1 ms on every link (the default), so the plan is exact:
//   t = 0   a is cut off from c4 and c5 (and b from everyone); a asks
//   t = 2   a enters with the grants of c1, c2, c3 (its requests to c4, c5 were dropped)
//   t = 5   the partition heals
//   t = 10  c3 crashes; t = 12 it restarts (with the restart, without it, or with durable grants)
//   t = 20  b asks: c1 and c2 deny, c3 (if it forgot), c4 and c5 grant at t = 22
//   t = 52  a leaves (it holds 50 ms)
const coordinators = ['c1', 'c2', 'c3', 'c4', 'c5']
const ids = [...coordinators, 'a', 'b']
const asks: Ask[] = [
  { node: 'a', at: 0, hold: 50 },
  { node: 'b', at: 20, hold: 10 },
]
const SEED = 1

const plan =
  (restart: 'restart' | 'no crash' | 'crash only') =>
  (net: SimNetwork): void => {
    net.partition(['a', 'c1', 'c2', 'c3'], ['c4', 'c5'])
    net.at(5, () => net.heal())
    if (restart === 'no crash') return
    net.at(10, () => net.crash('c3'))
    if (restart === 'restart') net.at(12, () => net.restart('c3'))
  }

const grantsTo = (net: SimNetwork, to: string) =>
  net.trace
    .filter((e) => e.type === 'send' && e.to === to && (e.msg as { type: string }).type === 'grant')
    .map((e) => (e as { from: unknown }).from)

describe('quorumMutex: a restart in the intersection breaks mutual exclusion', () => {
  it('forgetful coordinators: b enters while a holds, and the checker reports it', () => {
    const run = runMutex(ids, quorumMutex({ coordinators, m: 3 }), asks, {
      seed: SEED,
      faults: plan('restart'),
    })
    expect(grantsTo(run.net, 'a')).toEqual(['c1', 'c2', 'c3'])
    expect(grantsTo(run.net, 'b')).toEqual(['c3', 'c4', 'c5'])
    const entries = run.events.filter((e) => e.event.type === 'acquired')
    expect(entries.map((e) => [e.node, e.t])).toEqual([
      ['a', 2],
      ['b', 22],
    ])
    // The expected finding: two holders. c3 forgot its counter, so both quorums' largest counter
    // is 1; the clients' ranks (a before b) still tell their tokens apart.
    expect(run.violations).toEqual([
      't=22: b acquired default (token 65537) while a held it since t=2 (token 65536)',
    ])
    // a's release reaches a c3 that now holds b's grant: it is ignored, and reported.
    expect(run.events).toContainEqual({
      node: 'c3',
      t: 53,
      event: { type: 'ignored', from: 'a', reason: 'release of default: not the grant held here' },
    })
  })

  it('the same plan without the restart keeps mutual exclusion: b waits for a', () => {
    for (const variant of ['no crash', 'crash only'] as const) {
      const run = runMutex(ids, quorumMutex({ coordinators, m: 3 }), asks, {
        seed: SEED,
        faults: plan(variant),
      })
      expect(run.violations).toEqual([])
      expect(run.order).toEqual({ default: ['a', 'b'] })
      expect(run.granted).toBe(2)
      const b = run.events.find((e) => e.node === 'b' && e.event.type === 'acquired')
      expect(b!.t).toBeGreaterThan(52)
      // b was refused until then, and backed off.
      expect(run.events.some((e) => e.node === 'b' && e.event.type === 'backoff')).toBe(true)
    }
  })

  it('durable grants: the restarted c3 remembers a, so the same plan keeps mutual exclusion', () => {
    const run = runMutex(ids, quorumMutex({ coordinators, m: 3, durableGrants: true }), asks, {
      seed: SEED,
      faults: plan('restart'),
    })
    expect(run.violations).toEqual([])
    expect(run.order).toEqual({ default: ['a', 'b'] })
    expect(run.granted).toBe(2)
    expect(run.net.trace).toContainEqual(expect.objectContaining({ type: 'restart', node: 'c3' }))
    // c3 answered b DENIED after its restart, from what its storage told it.
    const denied = run.net.trace.filter(
      (e) =>
        e.type === 'send' &&
        e.from === 'c3' &&
        e.to === 'b' &&
        (e.msg as { type: string }).type === 'deny',
    )
    expect(denied.length).toBeGreaterThan(0)
    expect(denied[0]!.t).toBeGreaterThan(12)
    expect(run.net.storageOf('c3')).toEqual({ 'quorum/counter/default': 2 }) // b's turn, given back
  })
})

describe('quorumMutex: random coordinator restarts', () => {
  // Coordinators crash at random and come back 1..5 ms later, while five clients contend.
  const clients = ['p1', 'p2', 'p3', 'p4', 'p5']
  const all = [...coordinators, ...clients]
  const restarts = (seed: number) => (net: SimNetwork) => {
    const random = createRandom(`restarts/${seed}`).next
    for (let i = 0; i < 12; i++) {
      const node = coordinators[Math.floor(random() * coordinators.length)]!
      const at = Math.floor(random() * 300)
      net.at(at, () => {
        if (net.isCrashed(node)) return
        net.crash(node)
        net.at(at + 1 + Math.floor(random() * 5), () => net.restart(node))
      })
    }
  }
  const runOne = (seed: number, durableGrants: boolean) =>
    runMutex(
      all,
      quorumMutex({ coordinators, m: 3, durableGrants }),
      randomAsks(clients, createRandom(`asks/${seed}`).next, 20, 300, 20),
      {
        seed,
        net: { latency: { kind: 'uniform', min: 1, max: 5 } },
        faults: restarts(seed),
        until: 3000, // a release lost to a crashed coordinator can leave it bound for good
      },
    )

  it('forgetful coordinators do break it on some seeds', () => {
    const broken = seedList(40).filter((seed) => runOne(seed, false).violations.length > 0)
    expect(broken.length).toBeGreaterThan(0)
  })

  it('durable grants never give two holders, whatever the restarts', () => {
    forSeeds(seedList(40), (seed) => {
      expect(runOne(seed, true).violations).toEqual([])
    })
  })
})
