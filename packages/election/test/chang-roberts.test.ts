import { createRandom } from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { changRoberts } from '../src/chang-roberts/index.js'
import { runElection } from './support/harness.js'

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1)
const harmonic = (n: number) => range(n).reduce((sum, k) => sum + 1 / k, 0)

/** A seeded arrangement of the ids round the ring. */
function shuffled(ids: readonly number[], seed: number): number[] {
  const random = createRandom(`arrangement/${seed}`)
  const out = [...ids]
  for (let i = out.length - 1; i > 0; i--) {
    const j = random.int(0, i)
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

/** ELECTION messages of one election where every member starts at once on the ring `ring`. */
function electionMessages(ring: number[]): number {
  const run = runElection(ring, changRoberts({ ring, startAll: true }), {
    seed: 1,
    until: 10 * ring.length,
    net: { trace: false },
  })
  expect(run.violations).toEqual([])
  expect(run.agreed?.leader).toBe(ring.length)
  return run.net.stats.byType.election ?? 0
}

describe('Chang-Roberts: one initiator', () => {
  it('elects the highest id: the initiator id travels to the first better one, the winner all round', () => {
    const run = runElection(range(8), changRoberts(), {
      seed: 1,
      until: 200,
      plan: (net) => net.request(3, { type: 'start' }),
    })
    expect(run.violations).toEqual([])
    expect(run.agreed).toEqual({ leader: 8, term: 7 }) // the ballot of ring position 7 of 8
    const elections = (run.net.trace as unknown as { type: string; msg?: { type: string } }[])
      .filter((e) => e.type === 'send' && e.msg?.type === 'election')
      .map((e) => (e.msg as unknown as { candidate: number }).candidate)
    // 3 sends its id to 4, which is better and sends its own, and so on to 8, which goes round.
    expect(elections).toEqual([3, 4, 5, 6, 7, 8, 8, 8, 8, 8, 8, 8, 8])
    expect(run.sentByType.elected).toBe(8)
  })

  it('at most 3n - 1 messages: the worst initiator is the successor of the best', () => {
    for (const n of [2, 8, 33]) {
      const run = runElection(range(n), changRoberts(), {
        seed: 1,
        until: 10 * n,
        plan: (net) => net.request(1, { type: 'start' }),
      })
      expect(run.agreed?.leader).toBe(n)
      expect((run.sentByType.election ?? 0) + (run.sentByType.elected ?? 0)).toBe(3 * n - 1)
    }
  })
})

describe('Chang-Roberts: every member starts at once, message counts against the theory', () => {
  it('ids decreasing along the ring: n(n+1)/2 ELECTION messages exactly', () => {
    for (const n of [8, 32, 128]) {
      const worst = range(n).reverse() // each id goes all the way to the best, which goes round
      const count = electionMessages(worst)
      console.log(
        `Chang-Roberts worst case, n = ${n}: ${count} ELECTION, n(n+1)/2 = ${(n * (n + 1)) / 2}`,
      )
      expect(count).toBe((n * (n + 1)) / 2)
    }
  })

  it('ids increasing along the ring: 2n - 1 (each id is swallowed one hop on)', () => {
    expect(electionMessages(range(32))).toBe(2 * 32 - 1)
  })

  it('random arrangements: the mean is n·H_n', () => {
    // The k-th best id travels to the first better id, n/k hops on average (k - 1 better ids
    // among n - 1 places), the best n: the expectation is n·H_n exactly. Over 200 arrangements
    // one run spreads by about 12% of the mean (sd 2.7 at n = 8, 15.8 at 32, 70 at 128), so the
    // mean of 200 has a standard error under 0.9%: 5% is more than 5 standard errors at every n
    // (a fixed 200 arrangements, not SD_SEEDS, for that reason), and an implementation that sent
    // n messages too many or too few would be off by 18% or more.
    const seeds = 200
    for (const n of [8, 32, 128]) {
      const counts = range(seeds).map((seed) => electionMessages(shuffled(range(n), seed)))
      const mean = counts.reduce((a, b) => a + b, 0) / seeds
      const sd = Math.sqrt(counts.reduce((a, c) => a + (c - mean) ** 2, 0) / (seeds - 1))
      const theory = n * harmonic(n)
      console.log(
        `Chang-Roberts random arrangements, n = ${n}, ${seeds} seeds: mean ${mean.toFixed(1)} ELECTION (sd ${sd.toFixed(1)}), n·H_n = ${theory.toFixed(1)}, ratio ${(mean / theory).toFixed(3)}`,
      )
      expect(Math.abs(mean - theory) / theory).toBeLessThan(0.05)
    }
  })
})

describe('Chang-Roberts: suspicions and requests', () => {
  const ids = range(5)
  const falseSuspicion = (suspecter: number) =>
    runElection(ids, changRoberts(), {
      seed: 1,
      until: 1_400,
      plan: (net) => {
        net.request(1, { type: 'start' })
        net.at(300, () => net.setLink(5, suspecter, { loss: 1 }, { oneWay: true }))
        net.at(1_000, () => net.setLink(5, suspecter, { loss: 0 }, { oneWay: true }))
      },
    })
  const announced = (run: ReturnType<typeof runElection>, node: number) =>
    run.events.filter((e) => e.node === node).map((e) => e.event)

  it('a false suspicion away from the leader: the election goes through it, and re-elects it', () => {
    const run = falseSuspicion(2)
    expect(run.violations).toEqual([])
    expect(announced(run, 2)).toEqual([
      { type: 'leader', leader: 5, term: 4 },
      { type: 'leader-lost', term: 4 },
      { type: 'leader', leader: 5, term: 9 },
    ])
    expect(run.agreed).toEqual({ leader: 5, term: 9 })
  })

  it('a false suspicion by the leader s predecessor: it passes over the leader and wins, until the leader hears of it', () => {
    const run = falseSuspicion(4)
    expect(run.violations).toEqual([])
    // 4 leads term 8 for a few ms, 5 still leads term 4; 5 hears 4's heartbeat and takes over.
    expect(announced(run, 1)).toEqual([
      { type: 'leader', leader: 5, term: 4 },
      { type: 'leader', leader: 4, term: 8 },
      { type: 'leader', leader: 5, term: 9 },
    ])
    expect(run.agreed).toEqual({ leader: 5, term: 9 })
  })

  it('a leader that resigns relays the next election without standing in it', () => {
    const run = runElection(ids, changRoberts(), {
      seed: 1,
      until: 1_000,
      plan: (net) => {
        net.request(2, { type: 'start' })
        net.request(5, { type: 'resign' }, 100)
        net.request(3, { type: 'resign' }, 200) // not the leader: ignored
      },
    })
    expect(run.violations).toEqual([])
    expect(announced(run, 5)).toEqual([
      { type: 'leader', leader: 5, term: 4 },
      { type: 'leader-lost', term: 4 },
      { type: 'leader', leader: 4, term: 8 },
    ])
    expect(announced(run, 3).at(-1)).toEqual({
      type: 'ignored',
      from: 3,
      reason: 'resign: not the leader',
    })
    expect(run.agreed).toEqual({ leader: 4, term: 8 })
  })

  it('a leader that resigns while its own id is on the way round drops it when it comes back', () => {
    const run = runElection(ids, changRoberts(), {
      seed: 1,
      until: 1_000,
      plan: (net) => {
        net.request(1, { type: 'start' })
        // 1 starts again at 100; 5 gets that ELECTION at 104 and sends its own id, due back at 109.
        net.request(1, { type: 'start' }, 100)
        net.request(5, { type: 'resign' }, 105)
      },
    })
    expect(run.violations).toEqual([])
    expect(announced(run, 5).at(-1)).toEqual({ type: 'leader', leader: 4, term: 8 })
    expect(run.agreed).toEqual({ leader: 4, term: 8 })
    // Without waiting for an election timeout: 1, after 5 on the ring, starts the next at once.
    const elected = ofType(run.events, 'leader').find((e) => e.event.leader === 4)
    expect(elected?.t).toBeLessThan(130)
  })

  it('checks its options', () => {
    expect(() => changRoberts({ ring: [] })).toThrow(/non-empty array/)
    expect(() => changRoberts({ electionTimeoutMs: 0 })).toThrow(/electionTimeoutMs/)
    const run = () => runElection([1, 2], changRoberts({ ring: [1, 3] }), { seed: 1, until: 10 })
    expect(run).toThrow(/not in the ring/)
  })
})
