/**
 * The measures of every algorithm (messages per entry, client delay, synchronization delay; see
 * test/support/measures.ts for the workloads and the definitions), fault-free with every message
 * taking exactly 1 ms, so times read in message delays. Checks them against the course texts where
 * they must agree, and keeps the README's table "Measured beside the theory" equal to what the
 * measurements give.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { gridQuorumRanks } from '../src/maekawa/index.js'
import {
  algorithm,
  HEAVY_ROUNDS,
  LIGHT_GAP_MS,
  type Measured,
  maekawaPeers,
  measure,
  type Summary,
  TABLE_SIZES,
} from './support/measures.js'
import { findReadmeBlock, readmeBlock, renderMeasuresTable } from './support/measures-table.js'

/** Every sample is `value`. */
const always = (s: Summary | undefined, value: number) =>
  expect(s).toEqual({ mean: value, min: value, max: value, count: expect.any(Number) })

const delays = (m: Measured) => m.runs.flatMap((r) => r.handOvers)

describe('the README table "Measured beside the theory"', () => {
  it('is what the measurements give now', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    const block = findReadmeBlock(readme)
    expect(
      block,
      'README.md has lost its <!-- measures:start --> and <!-- measures:end --> markers',
    ).toBeDefined()
    expect(
      block,
      "README.md's table is stale: regenerate it with `pnpm measures --write` in packages/mutex",
    ).toBe(readmeBlock(renderMeasuresTable()))
  })
})

describe('centralized coordinator (the coordinator never asks)', () => {
  const algo = algorithm('centralized')
  it('costs 3 messages per entry, a client delay of 2 and a sync delay of 2 (a round trip each)', () => {
    for (const n of TABLE_SIZES) {
      const light = measure(algo, n, 'light')
      expect(light.messagesPerEntry).toBe(3)
      always(light.clientDelay, 2)
      const heavy = measure(algo, n, 'heavy')
      expect(heavy.messagesPerEntry).toBe(3)
      always(heavy.clientDelay, 2)
      always(heavy.syncDelay, 2) // RELEASE to the coordinator, GRANT to the next
    }
  })
})

describe('Ricart-Agrawala and Lamport', () => {
  const cases = [
    { algo: algorithm('ricart-agrawala'), perEntry: (n: number) => 2 * (n - 1) },
    { algo: algorithm('ricart-agrawala-always'), perEntry: (n: number) => 2 * (n - 1) },
    { algo: algorithm('lamport'), perEntry: (n: number) => 3 * (n - 1) },
  ]
  const sizes = [2, 3, 5, 7, ...TABLE_SIZES]

  for (const { algo, perEntry } of cases) {
    it(`${algo.name}: light load costs the texts' messages and a client delay of one round trip`, () => {
      for (const n of sizes) {
        const m = measure(algo, n, 'light')
        expect(m.messagesPerEntry).toBe(perEntry(n))
        always(m.clientDelay, 2)
      }
    })

    it(`${algo.name}: under heavy load one message delay separates an exit from the next entry`, () => {
      for (const n of sizes) {
        const m = measure(algo, n, 'heavy')
        always(m.syncDelay, 1)
        if (algo.key === 'ricart-agrawala-always') {
          // Each deferral costs a DENY besides the OK that follows it, at most one per peer.
          expect(m.messagesPerEntry).toBeGreaterThan(perEntry(n))
          expect(m.messagesPerEntry).toBeLessThanOrEqual(3 * (n - 1))
        } else {
          expect(m.messagesPerEntry).toBe(perEntry(n))
        }
      }
    })
  }

  it('everyone asking at once: Lamport enters after one delay, Ricart-Agrawala after two', () => {
    // A peer's request stamped later than one's own is the proof Lamport waits for (FIFO links):
    // it comes with the requests themselves, where Ricart-Agrawala needs the OKs they cause.
    for (const n of sizes) {
      always(measure(algorithm('lamport'), n, 'heavy').clientDelay, 1)
      always(measure(algorithm('ricart-agrawala'), n, 'heavy').clientDelay, 2)
    }
  })
})

describe('Maekawa (grid quorums of K = 2 sqrt(n) - 1 members when n is a square)', () => {
  const algo = algorithm('maekawa')

  it('light load: 3(K - 1) messages per entry and a client delay of 2', () => {
    for (const n of [2, 4, 5, 9, 16]) {
      const m = measure(algo, n, 'light')
      const peers = maekawaPeers(n)
      for (const run of m.runs) {
        // REQUEST, LOCKED and RELEASE to each quorum peer of whoever entered.
        const expected = run.entries.reduce((s, e) => s + 3 * peers[Number(e.node) - 1]!, 0)
        expect(run.messages).toBe(expected)
      }
      always(m.clientDelay, 2)
    }
    for (const n of TABLE_SIZES) {
      expect(measure(algo, n, 'light').messagesPerEntry).toBe(3 * (2 * Math.sqrt(n) - 2))
    }
  })

  it('heavy load: 3(K - 1) to 5(K - 1) messages per entry; a sync delay of 2 (RELEASE, then LOCKED), 1 when the vote missing was the leaver own', () => {
    for (const n of [4, 9, 16]) {
      const m = measure(algo, n, 'heavy')
      const peers = maekawaPeers(n)
      const k1 = peers.reduce((s, p) => s + p, 0) / n
      expect(m.messagesPerEntry).toBeGreaterThanOrEqual(3 * k1)
      expect(m.messagesPerEntry).toBeLessThanOrEqual(5 * k1)
      const quorums = gridQuorumRanks(n)
      for (const h of delays(m)) {
        const leaverInQuorum = quorums[Number(h.to) - 1]!.includes(Number(h.from) - 1)
        expect(h.delay).toBeGreaterThanOrEqual(leaverInQuorum ? 1 : 2)
        expect(h.delay).toBeLessThanOrEqual(2)
      }
      expect(delays(m).map((h) => h.delay)).toContain(2)
    }
    // Contention costs more than the light load's 3(K - 1).
    for (const n of TABLE_SIZES) {
      expect(measure(algo, n, 'heavy').messagesPerEntry).toBeGreaterThan(
        measure(algo, n, 'light').messagesPerEntry,
      )
    }
  })

  it('everyone asking at once, the first entry takes 3 delays: REQUEST, FAILED, then the LOCKED of a vote given back', () => {
    for (const n of TABLE_SIZES) always(measure(algo, n, 'heavy').clientDelay, 3)
  })
})

describe('token ring (a pass is TOKEN, ACK, COMMIT: 3 messages, 3 message delays)', () => {
  const algo = algorithm('token-ring')
  const sizes = [4, 5, ...TABLE_SIZES.filter((n) => n !== 4)]

  it('heavy load: one pass per entry, so 3 messages and a sync delay of 3, in ring order', () => {
    for (const n of sizes) {
      const m = measure(algo, n, 'heavy')
      expect(m.messagesPerEntry).toBe(3)
      always(m.syncDelay, 3)
      for (const run of m.runs) {
        const order = run.entries.map((e) => Number(e.node))
        expect(order.slice(1)).toEqual(order.slice(0, -1).map((id) => (id % n) + 1))
      }
    }
  })

  it('light load: a client delay of 0 to 3n (the texts 0 to n passes); the idle ring spends about a message per ms', () => {
    for (const n of sizes) {
      const m = measure(algo, n, 'light')
      const all = m.runs.flatMap((r) => r.clientDelays)
      expect(all).toHaveLength(m.runs.reduce((s, r) => s + r.entries.length, 0))
      for (const d of all) {
        expect(d).toBeGreaterThanOrEqual(0)
        expect(d).toBeLessThan(3 * n)
      }
      expect(m.clientDelay!.min).toBe(0) // some requests find the token at hand
      // Requests LIGHT_GAP_MS apart, and the token keeps moving in between.
      expect(m.messagesPerEntry).toBeGreaterThan(0.9 * LIGHT_GAP_MS)
    }
  })
})

describe('quorum of n coordinators (apart from the n processes, a majority needed)', () => {
  const algo = algorithm('quorum')

  it('light load: 3n messages per entry (REQUEST, GRANT, RELEASE per coordinator), a client delay of 2', () => {
    for (const n of TABLE_SIZES) {
      const m = measure(algo, n, 'light')
      expect(m.messagesPerEntry).toBe(3 * n)
      always(m.clientDelay, 2)
    }
  })

  it('heavy load: denials and retries cost more than 3n; a waiter only gets in on a retry, 2 delays at best', () => {
    for (const n of TABLE_SIZES) {
      const m = measure(algo, n, 'heavy')
      expect(m.messagesPerEntry).toBeGreaterThan(3 * n)
      expect(m.syncDelay!.min).toBeGreaterThanOrEqual(2)
      expect(m.syncDelay!.mean).toBeGreaterThan(2)
      always(m.clientDelay, 2)
      // No queue: a client that leaves and asks again at once wins again, all its rounds in a row
      // (its RELEASE and REQUEST reach every coordinator together), as the README says.
      for (const run of m.runs) {
        const order = run.entries.map((e) => e.node)
        order.forEach((node, i) => {
          expect(node).toBe(order[i - (i % HEAVY_ROUNDS)])
        })
      }
    }
  })
})
