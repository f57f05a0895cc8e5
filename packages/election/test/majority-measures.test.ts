/**
 * The figures of the majority mode: time to elect after the leader's crash, in heartbeat timeouts,
 * and messages per election (pre-vote requests and answers, vote requests and answers, and the
 * announcement; heartbeats apart).
 */
import type { NodeId } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { seedList } from '../../../test-support/seeds.js'
import { majorityElection } from '../src/majority/index.js'
import { runElection } from './support/harness.js'

const INTERVAL = 100
const TIMEOUT = 500
const ELECTION_TYPES = new Set(['pre-vote', 'pre-vote-reply', 'vote', 'vote-reply', 'leader'])

interface Figures {
  /** From the crash to the last live node's `leader` event of the new term, in timeouts. */
  failover: number[]
  /** Election messages sent in that time. */
  messages: number[]
}

function measure(
  n: number,
  seeds: readonly number[],
  latency: number | { kind: 'uniform'; min: number; max: number },
): Figures {
  const ids = Array.from({ length: n }, (_, i) => i + 1)
  const out: Figures = { failover: [], messages: [] }
  for (const seed of seeds) {
    // The crash falls anywhere between two heartbeats.
    const crashAt = 2000 + ((seed * 37) % INTERVAL)
    const run = runElection(ids, majorityElection(), {
      seed,
      until: crashAt + 10 * TIMEOUT,
      net: { latency },
      plan: (net) => net.at(crashAt, () => net.crash(n)),
    })
    expect(run.violations).toEqual([])
    expect(run.agreed?.leader).toBe(n - 1)
    const term = run.agreed!.term
    let done = 0
    for (const id of run.live as NodeId[]) {
      const e = run.events.find((x) => {
        const { event } = x
        return x.node === id && event.type === 'leader' && event.term === term
      })!
      done = Math.max(done, e.t)
    }
    out.failover.push((done - crashAt) / TIMEOUT)
    out.messages.push(
      run.net.trace.filter(
        (e) =>
          e.type === 'send' &&
          e.t >= crashAt &&
          e.t <= done &&
          ELECTION_TYPES.has((e.msg as { type: string }).type),
      ).length,
    )
  }
  return out
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
const max = (xs: number[]) => Math.max(...xs)

describe('majorityElection figures', () => {
  it('failover in about one timeout, 5n - 7 messages after a crash (the dead leader is asked too)', () => {
    const seeds = seedList(40)
    const rows: string[] = []
    for (const [label, latency] of [
      ['1 ms', 1],
      ['1-10 ms', { kind: 'uniform' as const, min: 1, max: 10 }],
    ] as const) {
      for (const n of [3, 5, 9]) {
        const f = measure(n, seeds, latency)
        rows.push(
          `n=${n} latency ${label}: failover mean ${mean(f.failover).toFixed(2)} max ` +
            `${max(f.failover).toFixed(2)} timeouts; messages mean ${mean(f.messages).toFixed(1)} ` +
            `max ${max(f.messages)} (twice n-1 requests and n-2 answers, n-1 announcements = ${5 * n - 7})`,
        )
        // Suspicion takes timeoutMs less the time since the last heartbeat; the best live node
        // stands within the first 1/n of the candidacy window.
        expect(mean(f.failover)).toBeLessThan(1.3)
        expect(max(f.failover)).toBeLessThan(2)
        if (latency === 1) expect(max(f.messages)).toBe(5 * n - 7)
        else expect(mean(f.messages)).toBeLessThan(6 * (n - 1))
      }
    }
    console.log(rows.join('\n'))
  })
})
