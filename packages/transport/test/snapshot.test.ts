import { describe, expect, it } from 'vitest'
import { pingPong, vectorBroadcast } from '../../../test-support/explore-protocols.js'
import { withVectorClocks } from '../src/explore/index.js'
import {
  canonicalKey,
  compose,
  hashKey,
  type NodeId,
  type Protocol,
  SimNetwork,
  stateHash,
} from '../src/index.js'

describe('canonicalKey', () => {
  it('sorts object keys, keeps array order, and refuses what is not plain, naming the path', () => {
    expect(canonicalKey({ b: 1, a: [2, 1] })).toBe(canonicalKey({ a: [2, 1], b: 1 }))
    expect(canonicalKey([1, 2])).not.toBe(canonicalKey([2, 1]))
    expect(canonicalKey({ z: -0 })).toBe('{"z":0}')
    const cases: Array<[unknown, RegExp]> = [
      [{ peers: new Map() }, /snapshot\.peers is a Map/],
      [{ seen: [1, new Set([2])] }, /snapshot\.seen\[1\] is a Set/],
      [{ f: () => 1 }, /snapshot\.f is function/],
      [{ x: undefined }, /snapshot\.x is undefined/],
      [{ t: Number.NaN }, /snapshot\.t is NaN/],
      [{ d: new Date(0) }, /snapshot\.d is an instance of Date/],
    ]
    for (const [value, error] of cases) expect(() => canonicalKey(value, 'snapshot')).toThrow(error)
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    expect(() => canonicalKey(cycle)).toThrow(/value\.self is a cycle/)
  })

  it('hashes to 16 hex digits, the same for equal data, apart for different data', () => {
    expect(hashKey('abc')).toMatch(/^[0-9a-f]{16}$/)
    expect(stateHash({ a: 1, b: 2 })).toBe(stateHash({ b: 2, a: 1 }))
    const seen = new Set<string>()
    for (let i = 0; i < 10_000; i++) seen.add(stateHash({ i }))
    expect(seen.size).toBe(10_000)
  })
})

const counterOnly = (): Protocol<number, never, never> => ({
  onMessage() {},
  snapshot: () => null,
})

describe('snapshots through compose and withVectorClocks', () => {
  const counter = (): Protocol<number, never, never> => {
    let n = 0
    return {
      onMessage(_f, m) {
        n += m
      },
      snapshot: () => ({ n }),
    }
  }
  it('compose gives its children’s snapshots by name; none when a child has none', () => {
    const both = compose({ a: counter(), b: counter() })
    expect(both.snapshot?.()).toEqual({ a: { n: 0 }, b: { n: 0 } })
    const bare: Protocol<number> = { onMessage() {} }
    expect(compose({ a: counter(), b: bare }).snapshot).toBeUndefined()
  })
  it('withVectorClocks adds its clock to the inner snapshot', () => {
    const p = withVectorClocks(pingPong(1))(2)
    expect(p.snapshot?.()).toEqual({ vc: {}, inner: null })
  })

  it('withVectorClocks restores its clock with the inner state, and refuses a bad clock', () => {
    const p = withVectorClocks(pingPong(1))(2)
    expect(p.restore).toBeDefined()
    p.restore!({ vc: { '1': 2, '2': 3 }, inner: null })
    expect(p.snapshot?.()).toEqual({ vc: { '1': 2, '2': 3 }, inner: null })
    expect(() => p.restore!({ vc: { '1': -1 }, inner: null })).toThrow(/count -1/)
    expect(() => p.restore!({ inner: null })).toThrow(/vc/)
    // Without the inner protocol's restore() there is none to wrap.
    expect(withVectorClocks(counterOnly)(1).restore).toBeUndefined()
  })
})

/** Sends each request's payload to node 2, and sets a timer at start. */
const sender = (self: NodeId): Protocol<string, string, never> => ({
  start(ctx) {
    if (self === 1) ctx.setTimer('tick', 10)
  },
  onMessage() {},
  onRequest(req, ctx) {
    ctx.send(2, req)
  },
  snapshot: () => null,
})

describe('SimNetwork.fingerprint', () => {
  it('is the same for two orders of independent events, and undefined without snapshots', () => {
    const run = (order: 'forward' | 'back') => {
      const net = new SimNetwork()
      net.launch([1, 2, 3], vectorBroadcast())
      for (const id of [1, 2, 3]) net.request(id, { payload: `m${id}` })
      for (const key of ['r:1#1', 'r:2#1', 'r:3#1']) net.take(key)
      const keys = ['m:1>3#1', 'm:2>1#1']
      for (const key of order === 'forward' ? keys : keys.reverse())
        expect(net.take(key)).toBe(true)
      return net.fingerprint()
    }
    const forward = run('forward')
    expect(forward).toBeDefined()
    expect(canonicalKey(forward)).toBe(canonicalKey(run('back')))
    const bare = new SimNetwork()
    bare.launch([1, 2], (): Protocol<string> => ({ onMessage() {} }))
    expect(bare.fingerprint()).toBeUndefined()
  })

  it('keeps FIFO links in order and reordering links as multisets; shows timers and time', () => {
    const inFlight = (fifo: boolean, first: string, second: string) => {
      const net = new SimNetwork({ fifo })
      net.launch([1, 2], sender)
      net.request(1, first)
      net.request(1, second)
      net.take('r:1#1')
      net.take('r:1#2')
      return net.fingerprint()!
    }
    const fifo = inFlight(true, 'a', 'b')
    expect(fifo.links).toEqual([
      [
        '1>2',
        [
          ['a', false],
          ['b', false],
        ],
      ],
    ])
    expect(canonicalKey(fifo)).not.toBe(canonicalKey(inFlight(true, 'b', 'a')))
    expect(canonicalKey(inFlight(false, 'a', 'b'))).toBe(canonicalKey(inFlight(false, 'b', 'a')))
    expect(fifo.calls).toEqual([['t', '1', 'tick', 10]])
    expect(fifo.time).toBe(0)
    expect(fifo.nodes.map((n) => [n.id, n.crashed, n.state])).toEqual([
      [1, false, null],
      [2, false, null],
    ])
  })

  it('shows a crash, and storage', () => {
    const net = new SimNetwork()
    net.launch(
      [1, 2],
      (self): Protocol<string> => ({
        start(ctx) {
          ctx.storage.set('term', Number(self))
        },
        onMessage() {},
        snapshot: () => null,
      }),
    )
    net.crash(2)
    const print = net.fingerprint()!
    expect(print.nodes[1]).toMatchObject({
      id: 2,
      crashed: true,
      state: null,
      storage: { term: 2 },
    })
  })
})

describe('SimNetwork.stateOf', () => {
  it("is a node's part of fingerprint(): its snapshot, null while crashed, undefined without one", () => {
    const counter = (): Protocol<number, never, never> => {
      let n = 0
      return {
        start(ctx) {
          ctx.broadcast(1)
        },
        onMessage(_f, m) {
          n += m
        },
        snapshot: () => ({ n }),
      }
    }
    const net = new SimNetwork({ seed: 1, latency: 5 })
    net.launch([1, 2, 3], counter)
    net.run({ until: 2 })
    // Messages still in flight: the fingerprint lists them, stateOf reads the node alone.
    expect(net.pending).toBeGreaterThan(0)
    const print = net.fingerprint()!
    for (const id of [1, 2, 3]) expect(net.stateOf(id)).toEqual(print.nodes[id - 1]!.state)
    net.run()
    expect(net.stateOf(2)).toEqual({ n: 2 })
    net.crash(2)
    expect(net.stateOf(2)).toBeNull()
    const bare = new SimNetwork({ seed: 1 })
    bare.launch([1], () => ({ onMessage() {} }))
    expect(bare.stateOf(1)).toBeUndefined()
    expect(() => bare.stateOf(9)).toThrow(/stateOf/)
  })
})
