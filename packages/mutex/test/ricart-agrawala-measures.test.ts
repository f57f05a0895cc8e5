/**
 * The three measures of a mutual exclusion algorithm (bandwidth, client delay, synchronization
 * delay), taken in fault-free runs where every message takes exactly 1 ms, so times read directly
 * in message delays. Ricart-Agrawala and Lamport side by side.
 *
 * Measured (n = 2, 3, 5, 7): light load, client delay 2 for all; messages per entry 2(n - 1) for
 * Ricart-Agrawala (with or without alwaysAnswer), 3(n - 1) for Lamport. Heavy load, synchronization
 * delay 1 for all; alwaysAnswer then pays a DENY per deferral (2.875, 5.75, 11.5, 17.25 per entry
 * against 2, 4, 8, 12). Lamport's heavy-load client delay can drop to 1: a peer's RELEASE stamped
 * later than the new request already proves, over FIFO links, that nothing earlier is missing.
 */
import type { NodeId, ProtocolFactory } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import type { MutexRequest } from '../src/contract.js'
import { lamportMutex } from '../src/lamport/index.js'
import { ricartAgrawala } from '../src/ricart-agrawala/index.js'
import { type Ask, runMutex } from './support/harness.js'

interface Measures {
  messagesPerEntry: number
  /** Request to entry, in message delays. */
  clientDelay: { min: number; max: number; mean: number }
  /** One node's exit to the next node's entry, in message delays (heavy load only). */
  syncDelay?: { min: number; max: number; mean: number }
}

const stats = (xs: number[]) => ({
  min: Math.min(...xs),
  max: Math.max(...xs),
  mean: xs.reduce((a, b) => a + b, 0) / xs.length,
})

function measure(
  // biome-ignore lint/suspicious/noExplicitAny: any protocol of this package
  factory: ProtocolFactory<any, MutexRequest, any>,
  n: number,
  load: 'light' | 'heavy',
): Measures {
  const ids: NodeId[] = Array.from({ length: n }, (_, i) => `p${i + 1}`)
  const rounds = 4
  // Light: one request at a time, far apart. Heavy: everyone wants it again as soon as it leaves.
  const asks: Ask[] =
    load === 'light'
      ? ids.map((node, i) => ({ node, at: 20 * i, hold: 1 }))
      : ids.flatMap((node) => Array.from({ length: rounds }, () => ({ node, at: 0, hold: 1 })))
  const run = runMutex(ids, factory, asks, { seed: 1, net: { latency: 1 } })
  expect(run.violations).toEqual([])
  expect(run.granted).toBe(asks.length)
  const of = (type: string) => run.events.filter((e) => (e.event as { type: string }).type === type)
  const requested = of('requested')
  const acquired = of('acquired')
  const released = of('released')
  // The k-th entry of a node answers its k-th request.
  const clientDelays = acquired.map((a) => {
    const k = acquired.filter((b) => b.node === a.node && b.t <= a.t).length - 1
    return a.t - requested.filter((r) => r.node === a.node)[k]!.t
  })
  const result: Measures = {
    messagesPerEntry: run.net.stats.sent / run.entries,
    clientDelay: stats(clientDelays),
  }
  if (load === 'heavy') {
    result.syncDelay = stats(acquired.slice(1).map((a, i) => a.t - released[i]!.t))
  }
  return result
}

const algorithms = [
  { name: 'Ricart-Agrawala', factory: ricartAgrawala(), perEntry: (n: number) => 2 * (n - 1) },
  {
    name: 'Ricart-Agrawala, alwaysAnswer',
    factory: ricartAgrawala({ alwaysAnswer: true }),
    perEntry: (n: number) => 2 * (n - 1),
  },
  { name: 'Lamport', factory: lamportMutex(), perEntry: (n: number) => 3 * (n - 1) },
]

describe('measures with every message taking one delay', () => {
  for (const a of algorithms) {
    it(`${a.name}: light load costs the theory's messages and a client delay of one round trip`, () => {
      for (const n of [2, 3, 5, 7]) {
        const m = measure(a.factory, n, 'light')
        expect(m.messagesPerEntry).toBe(a.perEntry(n))
        expect(m.clientDelay).toEqual({ min: 2, max: 2, mean: 2 })
      }
    })

    it(`${a.name}: under heavy load one message delay separates an exit from the next entry`, () => {
      for (const n of [2, 3, 5, 7]) {
        const m = measure(a.factory, n, 'heavy')
        expect(m.syncDelay).toEqual({ min: 1, max: 1, mean: 1 })
        if (a.name.endsWith('alwaysAnswer')) {
          // Each deferral costs a DENY besides the OK that follows it.
          expect(m.messagesPerEntry).toBeGreaterThan(a.perEntry(n))
          expect(m.messagesPerEntry).toBeLessThanOrEqual(3 * (n - 1))
        } else {
          expect(m.messagesPerEntry).toBe(a.perEntry(n))
        }
      }
    })
  }
})
