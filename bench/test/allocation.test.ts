import { describe, expect, it } from 'vitest'
import { bytesPerOperation } from '../src/lib/allocation.js'

/** Keeps what a batch made reachable until the next, so the optimiser cannot drop it. */
let sink: unknown

describe('bytes allocated per operation', () => {
  it('counts what a batch allocates, scaled from the samples, collected or not', async () => {
    // An array of 1,000 small integers is a list of 8,000 bytes and a header: 8 kB an operation.
    const perArray = await bytesPerOperation(() => {
      for (let i = 0; i < 2_000; i++) sink = new Array(1_000).fill(i)
      return 2_000
    })
    expect(perArray).toBeGreaterThan(7_500)
    expect(perArray).toBeLessThan(9_500)
    // Twice the arrays for as many operations: twice the bytes.
    const perPair = await bytesPerOperation(() => {
      for (let i = 0; i < 2_000; i++) sink = [new Array(1_000).fill(i), new Array(1_000).fill(i)]
      return 2_000
    })
    expect(perPair / perArray).toBeGreaterThan(1.8)
    expect(perPair / perArray).toBeLessThan(2.2)
  })

  it('scales the samples up for objects much smaller than the sampling interval', async () => {
    // Two fields and a header: 40 bytes on this Node (20 with compressed pointers), sampled about
    // once in six; the samples' own sizes alone would read 6 or so.
    const perPair = await bytesPerOperation(() => {
      for (let i = 0; i < 200_000; i++) sink = { a: i, b: i }
      return 200_000
    })
    expect(perPair).toBeGreaterThan(16)
    expect(perPair).toBeLessThan(64)
  })

  it('finds next to nothing in a batch that allocates nothing', async () => {
    let total = 0
    const perAddition = await bytesPerOperation(() => {
      for (let i = 0; i < 1_000_000; i++) total += i & 7
      return 1_000_000
    })
    expect(total).toBeGreaterThan(0)
    expect(perAddition).toBeLessThan(1)
    expect(sink).toBeDefined()
  })
})
