import { describe, expect, it } from 'vitest'
import {
  type Ctx,
  type NodeId,
  ProtocolError,
  ProtocolStoppedError,
  runProtocol,
  type Transport,
} from '../src/index.js'
import { handTimers, handTransport } from './support/hand.js'

describe('runProtocol', () => {
  it('hands the protocol its id, sorted peers without itself, the clock and seeded randomness', () => {
    const { transport } = handTransport(2)
    let seen: { self: NodeId; peers: readonly NodeId[]; now: number; r: number[] } | undefined
    runProtocol(
      {
        start(ctx: Ctx<unknown>) {
          seen = {
            self: ctx.self,
            peers: ctx.peers,
            now: ctx.now(),
            r: [ctx.random(), ctx.random()],
          }
        },
        onMessage() {},
      },
      { transport, members: [3, 2, 'x', 1, 3], clock: { now: () => 1234 }, random: 5 },
    )
    expect(seen).toMatchObject({ self: 2, peers: [1, 3, 'x'], now: 1234 })
    const again: number[] = []
    runProtocol(
      { start: (ctx: Ctx<unknown>) => void again.push(ctx.random(), ctx.random()), onMessage() {} },
      {
        transport: handTransport(9).transport,
        members: [],
        random: 5,
      },
    )
    expect(seen!.r).toEqual(again)
  })

  it('setTimer replaces a timer of the same key; cancelTimer and stop cancel', () => {
    const { transport } = handTransport('a')
    const { timers, live, fireAll } = handTimers()
    const fired: string[] = []
    const handle = runProtocol(
      {
        start(ctx: Ctx<unknown>) {
          ctx.setTimer('x', 10)
          ctx.setTimer('x', 20)
          ctx.setTimer('y', 5)
          ctx.setTimer('z', 5)
          ctx.cancelTimer('y')
        },
        onMessage() {},
        onTimer: (key: string) => void fired.push(key),
      },
      { transport, members: ['a'], timers },
    )
    expect([...live.values()].map((t) => t.ms).sort()).toEqual([20, 5])
    fireAll()
    expect(fired.sort()).toEqual(['x', 'z'])
    runProtocol(
      { start: (ctx: Ctx<unknown>) => ctx.setTimer('w', 1), onMessage() {} },
      { transport, members: [], timers },
    )
    expect(live.size).toBe(1)
    handle.stop()
    handle.stop()
    expect(handle.stopped).toBe(true)
  })

  it('routes messages and requests, and delivers events to listeners attached before start', () => {
    const { transport, sent, deliver } = handTransport('me')
    const events: string[] = []
    const handle = runProtocol<string, string, string>(
      {
        start: (ctx) => ctx.emit('started'),
        onMessage: (from, msg, ctx) => ctx.send(from, `echo ${msg}`),
        onRequest: (req, ctx) => ctx.broadcast(req),
      },
      {
        transport: transport as Transport<string>,
        members: ['me', 'p', 'q'],
        onEvent: (e) => events.push(e),
      },
    )
    deliver('p', 'hi')
    handle.request('to all')
    expect(sent).toEqual([
      { to: 'p', msg: 'echo hi' },
      { to: 'p', msg: 'to all' },
      { to: 'q', msg: 'to all' },
    ])
    expect(events).toEqual(['started'])
  })

  it('a step started by a listener while another step releases keeps its outputs apart, step after step', () => {
    const { transport, sent } = handTransport('me')
    let handle: ReturnType<typeof runProtocol<string, string, string>> | undefined
    handle = runProtocol<string, string, string>(
      {
        onMessage: () => {},
        onRequest: (req, ctx) => {
          if (req.startsWith('inner')) {
            // More outputs than the outer step has left: a shared buffer would lose some.
            for (const i of [1, 2, 3]) ctx.send('p', `${req}: i${i}`)
            return
          }
          ctx.send('p', `${req}: o1`)
          ctx.emit(req)
          ctx.send('p', `${req}: o2`)
        },
      },
      {
        transport: transport as Transport<string>,
        members: ['me', 'p'],
        // The listener runs while the outer step releases: its request is a step of its own.
        onEvent: (e) => handle!.request(`inner of ${e}`),
      },
    )
    for (const round of ['a', 'b', 'c']) handle.request(round)
    expect(sent.map((s) => s.msg)).toEqual(
      ['a', 'b', 'c'].flatMap((r) => [
        `${r}: o1`,
        ...[1, 2, 3].map((i) => `inner of ${r}: i${i}`),
        `${r}: o2`,
      ]),
    )
  })

  it('a throwing protocol is stopped and reported; with no listener the error surfaces', () => {
    const { transport, deliver, handlers } = handTransport('n')
    const errors: ProtocolError[] = []
    const handle = runProtocol(
      {
        onMessage() {
          throw new TypeError('bad state')
        },
      },
      { transport, members: [], onError: (e) => errors.push(e) },
    )
    deliver('m', 1)
    expect(errors).toHaveLength(1)
    expect(errors[0]).toBeInstanceOf(ProtocolError)
    expect(errors[0]!.message).toMatch(
      /node "n" threw while handling message \(from "m"\): bad state/,
    )
    expect(handle.stopped).toBe(true)
    expect(handlers).toHaveLength(0) // detached from the transport
    expect(() => handle.request(undefined as never)).toThrow(ProtocolStoppedError)

    const loud = handTransport('l')
    runProtocol(
      {
        onMessage: () => {
          throw new Error('nobody listens')
        },
      },
      { transport: loud.transport, members: [] },
    )
    expect(() => loud.deliver('m', 1)).toThrow(ProtocolError)
  })
})
