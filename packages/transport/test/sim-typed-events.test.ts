import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  type Ctx,
  type EmittedEvent,
  emitsOf,
  type NodeId,
  type Protocol,
  SimNetwork,
  type TimedEvent,
} from '../src/index.js'
import { Ticker } from './protocols.js'

type HelloEvent = { type: 'hello'; n: number }

/** Emits once while it starts, so only a listener given to `launch` hears it. */
class Hello implements Protocol<never, never, HelloEvent> {
  start(ctx: Ctx<never, HelloEvent>) {
    ctx.emit({ type: 'hello', n: ctx.peers.length })
  }
  onMessage() {}
}

describe('typed emitted events', () => {
  it("a group's listeners hear its own protocol's events, typed, from the start", () => {
    const net = new SimNetwork({ seed: 1 })
    const fromStart: TimedEvent<HelloEvent>[] = []
    const group = net.launch(['a', 'b'], () => new Hello(), {
      onEmit: (node, event, t) => fromStart.push({ node, t, event }),
    })
    const ticks: number[] = []
    const ticker = net.launch(['c'], () => new Ticker(10))
    ticker.onEmit((_node, event) => {
      expectTypeOf(event).toEqualTypeOf<{ tick: number; local: number }>()
      ticks.push(event.tick)
    })
    const later: NodeId[] = []
    group.onEmit((node, event) => {
      expectTypeOf(event).toEqualTypeOf<HelloEvent>()
      later.push(node)
    })
    net.runFor(25)
    expect(fromStart).toEqual([
      { node: 'a', t: 0, event: { type: 'hello', n: 1 } },
      { node: 'b', t: 0, event: { type: 'hello', n: 1 } },
    ])
    expect(ticks).toEqual([1, 2])
    net.crash('a')
    net.restart('a')
    expect(later).toEqual(['a']) // a restart is heard; the ticker's events are not
  })

  it('stops hearing after unsubscribing, and after another protocol takes the node', () => {
    const net = new SimNetwork({ seed: 1 })
    const heard: number[] = []
    const first = net.launch(['c'], () => new Ticker(10))
    const stop = first.onEmit((_node, event) => heard.push(event.tick))
    net.runFor(15)
    stop()
    net.runFor(10)
    expect(heard).toEqual([1])
    const again: number[] = []
    first.onEmit((_node, event) => again.push(event.tick))
    const all: unknown[] = []
    net.onEmit((_node, event) => all.push(event))
    net.crash('c')
    net.launch(['c'], () => new Hello())
    net.runFor(30)
    expect(all).toEqual([{ type: 'hello', n: 0 }]) // the node emitted, but as another protocol
    expect(again).toEqual([])
  })

  it('emitsOf reads typed events back from a trace; EmittedEvent is the untyped form', () => {
    const net = new SimNetwork({ seed: 1 })
    net.launch(['a'], () => new Hello())
    const typed = emitsOf<HelloEvent>(net.trace)
    expectTypeOf(typed).toEqualTypeOf<TimedEvent<HelloEvent>[]>()
    expect(typed.map((e) => e.event.type)).toEqual(['hello'])
    expectTypeOf(emitsOf(net.trace)).toEqualTypeOf<EmittedEvent[]>()
    expectTypeOf<EmittedEvent>().toEqualTypeOf<TimedEvent<unknown>>()
  })
})
