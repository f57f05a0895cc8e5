import { describe, expect, expectTypeOf, it } from 'vitest'
import type { TimedEvent } from '../src/index.js'
import { runInSim } from '../src/testing/index.js'
import { Echo, Ticker } from './protocols.js'

describe('runInSim', () => {
  it('launches, plans, runs, and collects the typed events from the start', () => {
    const heard: number[] = []
    const run = runInSim(['a', 'b'], () => new Echo(), {
      seed: 3,
      net: { latency: 5 },
      plan: (_net, group) => group.request('a', { to: 'b', n: 7 }),
      onEmit: (_node, event) => heard.push(event.length),
    })
    expectTypeOf(run.events).toEqualTypeOf<TimedEvent<string>[]>()
    expect(run.events).toEqual([{ node: 'a', t: 10, event: 'pong 7 from b' }])
    expect(heard).toEqual(['pong 7 from b'.length])
    expect(run.result.quiescent).toBe(true)
    expect(run.net.seed).toBe(3)
  })

  it('stops at `until` when the protocol never goes quiet', () => {
    const run = runInSim(['t'], () => new Ticker(10), { seed: 1, until: 35 })
    expect(run.events.map((e) => e.event.tick)).toEqual([1, 2, 3])
    expect(run.result.time).toBe(35)
  })
})
