import { describe, expect, it } from 'vitest'
import type { CentralizedEvent } from '../src/centralized/index.js'
import { type ComposedRun, rows, runComposed, type WiringKind } from './support/election-lock.js'

/**
 * Issue 19, finding 1: the centralized lock led by the majority election's leader. A leader that
 * is cut off or paused must stop coordinating before anyone else can lead: with only `leader`
 * wired (the wiring before), it went on granting under its old term. Judged by the global checker.
 */

/** Node 3 leads (term 1) and coordinates; node 1 holds the lock; node 3 is cut off alone. */
function cutOff(wiring: WiringKind): ComposedRun {
  // The lease outlasts an election, so node 1 keeps its lease with the next coordinator.
  return runComposed(
    [1, 2, 3],
    { leaseMs: 400, maxDelayMs: 20 },
    ({ net, acquire }) => {
      acquire(1, 300)
      acquire(3, 310) // queued at node 3 behind node 1
      net.at(400, () => net.partition([3], [1, 2]))
    },
    { until: 1500, wiring },
  )
}

/** Node 3 leads and coordinates, node 1 holds, nodes 3 and 2 wait; node 3 is paused 1 s. */
function paused(wiring: WiringKind): ComposedRun {
  // Short leases: node 1's grant expires (in node 3's backlog) before the next leader is known.
  return runComposed(
    [1, 2, 3],
    { leaseMs: 60, maxDelayMs: 20 },
    ({ net, acquire }) => {
      acquire(1, 300)
      acquire(3, 310)
      acquire(2, 320)
      net.at(400, () => net.pause(3))
      net.at(1400, () => net.resume(3))
    },
    { until: 1700, wiring },
  )
}

const by = (run: ComposedRun, node: number, type: CentralizedEvent['type']) =>
  rows(run.lock, type).filter((r) => r[0] === node)

describe('centralized + majority election: a deposed coordinator grants nothing', () => {
  it('cut off alone: it stops coordinating when it steps down, and never grants itself', () => {
    const run = cutOff('lease')
    expect(run.verdict.violations, rows(run.lock, 'acquired', 'granted').join('\n')).toEqual([])
    expect(by(run, 3, 'coordinator-stopped').map((r) => r[1])).toHaveLength(1)
    const stoppedAt = by(run, 3, 'coordinator-stopped')[0]![1] as number
    expect(stoppedAt).toBeLessThan(500) // within timeoutMs - intervalMs of the cut, at 400
    expect(by(run, 3, 'granted').filter((r) => (r[1] as number) > 400)).toEqual([])
    expect(by(run, 3, 'acquired')).toEqual([])
    // Node 1 kept its lease through the change: renewed by node 2, the next coordinator.
    expect(by(run, 1, 'lease-lost')).toEqual([])
    expect(
      by(run, 1, 'lease-renewed').filter((r) => (r[1] as number) > 900).length,
    ).toBeGreaterThan(0)
  })

  it('cut off alone, with only `leader` wired (before): the checker sees it grant itself', () => {
    const run = cutOff('leader-only')
    expect(run.verdict.violations.join('\n')).toMatch(
      /3 acquired default \(token \d+\) while 1 held it since t=304/,
    )
  })

  it('paused past its lease with requests queued: on waking it grants nothing under its old term', () => {
    const run = paused('lease')
    expect(run.verdict.violations, rows(run.lock, 'acquired', 'granted').join('\n')).toEqual([])
    expect(by(run, 3, 'granted').filter((r) => (r[1] as number) > 400)).toEqual([])
    expect(by(run, 3, 'coordinator-stopped').map((r) => r[1])).toEqual([1400])
    // The next coordinator (node 2, term 2) served the queue.
    expect(by(run, 2, 'acquired')).toHaveLength(1)
  })

  it('paused, with only `leader` wired (before): the checker sees an overlap and a token going back', () => {
    const violations = paused('leader-only').verdict.violations.join('\n')
    expect(violations).toMatch(/t=1400: 3 acquired default .* while 2 held it/)
    expect(violations).toMatch(/t=1400: 3 acquired default with token \d+, not above the previous/)
  })
})
