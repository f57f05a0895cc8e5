import { createRandom, type NodeId } from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { seedList } from '../../../test-support/seeds.js'
import type { TimedEvent } from '../src/check.js'
import { type QuorumMutexEvent, quorumMutex } from '../src/quorum/index.js'
import { randomAsks, runMutex } from './support/harness.js'
import {
  coordinatorRestarts,
  coordinators,
  violationAsks,
  violationIds,
  violationPlan,
} from './support/quorum-runs.js'

// Issue 19, finding 5: when a coordinator restart in the intersection of two quorums let two
// clients in at once, both got token 1, so a resource refusing older tokens accepted both writers.
// Tokens now carry the client's rank below the grant counter: two clients never share one.

interface Entry {
  node: NodeId
  token: number
  t: number
}

const acquiredIn = (events: readonly TimedEvent<QuorumMutexEvent>[]): Entry[] =>
  ofType(events, 'acquired').map(({ node, t, event }) => ({ node, t, token: event.token }))

/**
 * The README's fenced resource, fed from the trace: every holder reads a counter when it enters
 * and writes it + 1 when it leaves, each operation carrying its token; the resource refuses any
 * operation whose token is below the largest it has seen. Returns the writes it accepted that
 * overwrote a write the writer had not read (lost updates): none, if the tokens fence.
 */
function lostUpdates(events: readonly TimedEvent<QuorumMutexEvent>[]): string[] {
  let value = 0
  let largest = Number.NEGATIVE_INFINITY
  const readBy = new Map<NodeId, number | undefined>()
  const lost: string[] = []
  for (const { node, t, event: e } of events) {
    if (e.type !== 'acquired' && e.type !== 'released') continue
    const token = e.token
    if (token < largest) {
      readBy.set(node, undefined) // refused: this holder does nothing more
      continue
    }
    largest = token
    if (e.type === 'acquired') {
      readBy.set(node, value)
      continue
    }
    const read = readBy.get(node)
    if (read === undefined) continue
    if (read !== value) lost.push(`t=${t}: ${String(node)} (token ${token}) overwrote ${value}`)
    value = read + 1
  }
  return lost
}

describe('quorumMutex: tokens of overlapping holders', () => {
  it("the texts' violation: the two holders get different tokens, and the fence lets one act", () => {
    // The plan of quorum-violation.test.ts: a enters with c1, c2, c3; c3 restarts and forgets; b
    // enters with c3, c4, c5 while a is inside.
    const run = runMutex(violationIds, quorumMutex({ coordinators, m: 3 }), violationAsks, {
      seed: 1,
      faults: violationPlan('restart'),
    })
    const [a, b] = acquiredIn(run.events)
    expect([a!.node, b!.node]).toEqual(['a', 'b'])
    expect(b!.t).toBeLessThan(52) // they overlap: the texts' violation
    expect(b!.token).not.toBe(a!.token)
    // b (the larger token) read and wrote first; a's write afterwards is refused.
    expect(lostUpdates(run.events)).toEqual([])
  })

  it('random coordinator restarts: no two clients ever share a token, and the fence holds', () => {
    const clients = ['p1', 'p2', 'p3', 'p4', 'p5']
    const ids = [...coordinators, ...clients]
    const failed: string[] = []
    let overlapping = 0
    for (const seed of seedList(100)) {
      const run = runMutex(
        ids,
        quorumMutex({ coordinators, m: 3 }),
        randomAsks(clients, createRandom(`asks/${seed}`).next, 20, 300, 20),
        {
          seed,
          net: { latency: { kind: 'uniform', min: 1, max: 5 } },
          faults: coordinatorRestarts(seed),
        },
      )
      if (run.violations.some((v) => v.includes(' while '))) overlapping++
      const owner = new Map<number, NodeId>()
      for (const { node, token } of acquiredIn(run.events)) {
        const other = owner.get(token)
        if (other !== undefined && other !== node) {
          failed.push(`seed ${seed}: ${String(other)} and ${String(node)} both got token ${token}`)
        }
        owner.set(token, node)
      }
      for (const lost of lostUpdates(run.events)) failed.push(`seed ${seed}: ${lost}`)
    }
    expect(failed, `failing seeds:\n${failed.join('\n')}`).toEqual([])
    // The runs did contain the texts' violation, so the check above was about something.
    expect(overlapping).toBeGreaterThan(0)
  })
})
