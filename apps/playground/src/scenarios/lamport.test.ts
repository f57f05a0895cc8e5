import { describe, expect, it } from 'vitest'
import { lamport } from './lamport.js'

const SEEDS = Number(process.env.SD_SEEDS ?? 100)

describe('lamport scenario', () => {
  it('the clock condition holds against the ground truth (many seeds, some with a crash)', () => {
    let concurrentButSmaller = 0
    for (let seed = 1; seed <= SEEDS; seed++) {
      const n = 2 + (seed % 6)
      const crash = seed % 5 === 0 ? [n] : []
      const { violations, result } = lamport.run({ n, seed, crash })
      expect(violations, `seed ${seed}`).toEqual([])
      const events = result.events
      expect(events.length, `seed ${seed}`).toBeGreaterThan(0)
      for (const e of events) expect(e.timestamp).toEqual({ time: e.lamport, pid: e.node })
      expect(result.totalOrder.length).toBe(events.length)
      concurrentButSmaller += result.concurrentPairsWithSmallerC
    }
    // The scalar clock orders concurrent events too: the texts' point about strong consistency.
    expect(concurrentButSmaller).toBeGreaterThan(0)
  })

  it('labels the diagram with each event clock, and its result is plain JSON', () => {
    const run = lamport.run({ n: 3, seed: 1, crash: [] })
    const labelled = run.net.trace.map((e) => run.annotate!(e)).filter((l) => l !== undefined)
    expect(labelled.length).toBe(run.result.events.length)
    expect(labelled.every((l) => /C=\d+$/.test(l))).toBe(true)
    expect(JSON.parse(JSON.stringify(run.result))).toEqual(run.result)
  })
})
