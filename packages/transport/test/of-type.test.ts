import { describe, expect, expectTypeOf, it } from 'vitest'
import { type NodeId, SimNetwork, type TimedEvent } from '../src/index.js'
import { ofType, traceOfType } from '../src/testing/index.js'

type Ev = { type: 'a'; n: number } | { type: 'b'; s: string }

describe('ofType', () => {
  it('keeps the events of one type, in order, narrowed to that member', () => {
    const events: TimedEvent<Ev>[] = [
      { node: 1, t: 0, event: { type: 'a', n: 1 } },
      { node: 2, t: 1, event: { type: 'b', s: 'x' } },
      { node: 1, t: 2, event: { type: 'a', n: 2 } },
    ]
    const as = ofType(events, 'a')
    expectTypeOf(as).toEqualTypeOf<TimedEvent<{ type: 'a'; n: number }>[]>()
    expect(as.map((e) => [e.node, e.event.n])).toEqual([
      [1, 1],
      [1, 2],
    ])
    expect(ofType(events, 'b').map((e) => e.event.s)).toEqual(['x'])
  })
})

describe('traceOfType', () => {
  it("keeps a trace's entries of one type, narrowed to that kind of entry", () => {
    const net = new SimNetwork({ seed: 1 })
    net.launch([1, 2], () => ({
      start: (ctx) => ctx.send(ctx.self === 1 ? 2 : 1, { hello: ctx.self }),
      onMessage: () => {},
    }))
    net.run()
    const sends = traceOfType(net.trace, 'send')
    expectTypeOf(sends[0]!.from).toEqualTypeOf<NodeId>()
    expect(sends.map((e) => [e.from, e.to, e.msg])).toEqual([
      [1, 2, { hello: 1 }],
      [2, 1, { hello: 2 }],
    ])
    expect(traceOfType(net.trace, 'deliver')).toHaveLength(2)
  })
})
