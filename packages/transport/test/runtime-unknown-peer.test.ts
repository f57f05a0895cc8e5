/**
 * The runtime's unreachable rule: a protocol's send to an id the transport cannot reach (one a peer
 * gossiped, or a hostile peer invented) is dropped and told to the protocol as an `unknown-peer`
 * signal; it never throws out of the step nor stops the instance. In the simulator (whose network
 * throws UnknownNodeError as the UDP adapter does) and with a hand transport for the observer.
 */
import { describe, expect, it } from 'vitest'
import {
  type NodeId,
  type Protocol,
  runProtocol,
  type Transport,
  type TransportSignal,
  UnknownNodeError,
} from '../src/index.js'
import { runInSim } from '../src/testing/index.js'

/** A peer tells `about`; the node greets every id it hears of, and the teller. */
type Msg = { type: 'gossip'; about: NodeId[] } | { type: 'hello' }
type Req = { to: NodeId; about: NodeId[] }
type Ev = { heard: 'hello'; from: NodeId } | { signal: TransportSignal }

function greeter(retryUnknown: boolean): Protocol<Msg, Req, Ev> {
  return {
    onMessage(from, msg, ctx) {
      if (msg.type === 'hello') return ctx.emit({ heard: 'hello', from })
      for (const id of msg.about) ctx.send(id, { type: 'hello' })
      ctx.send(from, { type: 'hello' })
    },
    onRequest(req, ctx) {
      ctx.send(req.to, { type: 'gossip', about: req.about })
    },
    onSignal(signal, ctx) {
      ctx.emit({ signal })
      // A careless protocol answering the drop with the same send: must not loop.
      if (retryUnknown && signal.type === 'unknown-peer') ctx.send(signal.peer, { type: 'hello' })
    },
  }
}

describe('a send to an unreachable id (the runtime)', () => {
  it('in the simulator: is dropped and signalled once per id, the step goes on, the node lives', () => {
    const run = runInSim(['a', 'b'], () => greeter(true), {
      seed: 1,
      plan: (_net, group) => {
        group.request('a', { to: 'b', about: ['ghost', 'a', 'ghost', 'nobody'] })
        group.request('a', { to: 'b', about: [] }, 50)
      },
    })
    const atB = run.events.filter((e) => e.node === 'b').map((e) => e.event)
    expect(atB).toEqual([
      { signal: { type: 'unknown-peer', peer: 'ghost', dropped: 2 } },
      { signal: { type: 'unknown-peer', peer: 'nobody', dropped: 1 } },
    ])
    // The reachable sends of the same step left, in order, and b went on handling input.
    const atA = run.events.filter((e) => e.node === 'a').map((e) => e.event)
    expect(atA).toEqual([
      { heard: 'hello', from: 'b' },
      { heard: 'hello', from: 'b' },
      { heard: 'hello', from: 'b' },
    ])
  })

  it('a protocol without onSignal just loses the message', () => {
    const { onSignal: _, ...plain } = greeter(false)
    const run = runInSim(['a', 'b'], () => ({ ...plain }), {
      seed: 2,
      plan: (_net, group) => group.request('a', { to: 'b', about: ['ghost'] }),
    })
    expect(run.events.map((e) => e.event)).toEqual([{ heard: 'hello', from: 'b' }])
  })

  it('observers see the drop; other send errors still escape as before', () => {
    const sent: NodeId[] = []
    const failing = new Set<NodeId>(['ghost'])
    const transport: Transport<Msg> = {
      self: 'a',
      closed: false,
      send(to) {
        if (failing.has(to)) throw new UnknownNodeError(to, 'a test book')
        if (to === 'broken') throw new Error('disk on fire')
        sent.push(to)
      },
      onMessage: () => () => {},
      close: async () => {},
    }
    const unreachable: Array<[NodeId, NodeId]> = []
    const handle = runProtocol(greeter(false), {
      transport,
      members: ['a'],
      observer: { onUnreachable: (node, to) => void unreachable.push([node, to]) },
    })
    handle.request({ to: 'ghost', about: [] })
    handle.request({ to: 'b', about: [] })
    expect(unreachable).toEqual([['a', 'ghost']])
    expect(sent).toEqual(['b'])
    expect(handle.stopped).toBe(false)
    // Only UnknownNodeError is the network's doing; anything else is the host's to see.
    expect(() => handle.request({ to: 'broken', about: [] })).toThrow('disk on fire')
  })
})
