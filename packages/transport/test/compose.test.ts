import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import {
  compose,
  createRandom,
  isSdError,
  type NodeId,
  type Protocol,
  type ProtocolError,
  runProtocol,
  SimNetwork,
  type TraceEvent,
  type Transport,
  type TransportSignal,
} from '../src/index.js'
import { traceOfType } from '../src/testing/index.js'
import { handTransport } from './support/hand.js'

const seeds = seedList(200)

/** Emits what its own view of the world shows it: every message and timer it gets. */
function witness(label: string): Protocol<{ type: 'ping'; n: number }, string, string> {
  return {
    start(ctx) {
      ctx.setTimer('tick', label === 'a' ? 3 : 5)
      ctx.broadcast({ type: 'ping', n: label === 'a' ? 1 : 2 })
    },
    onMessage(from, msg, ctx) {
      ctx.emit(`${label} got ping ${msg.n} from ${String(from)}`)
    },
    onTimer(key, ctx) {
      ctx.emit(`${label} timer ${key} at ${ctx.now()}`)
    },
    onRequest(req, ctx) {
      ctx.emit(`${label} request ${req}`)
    },
  }
}

const protoOf = (e: TraceEvent) => ('proto' in e ? e.proto : undefined)

const emitsOf = (net: SimNetwork, node: NodeId) =>
  traceOfType(net.trace, 'emit').filter((e) => e.node === node)

describe('compose', () => {
  it('children with colliding message shapes and timer keys only see their own traffic', () => {
    const net = new SimNetwork({ seed: 3, latency: 2 })
    const group = net.launch([1, 2], () => compose({ a: witness('a'), b: witness('b') }))
    group.request(1, { proto: 'b', req: 'hello b' })
    net.run()
    const events = emitsOf(net, 1).map((e) => e.event)
    expect(events).toEqual([
      { proto: 'b', event: 'b request hello b' },
      { proto: 'a', event: 'a got ping 1 from 2' },
      { proto: 'b', event: 'b got ping 2 from 2' },
      { proto: 'a', event: 'a timer tick at 3' },
      { proto: 'b', event: 'b timer tick at 5' },
    ])
    // On the wire and in the timer table, everything is namespaced.
    const sends = traceOfType(net.trace, 'send').filter((e) => e.from === 1)
    expect(sends.map((e) => e.msg)).toEqual([
      { proto: 'a', msg: { type: 'ping', n: 1 } },
      { proto: 'b', msg: { type: 'ping', n: 2 } },
    ])
    const timers = traceOfType(net.trace, 'timer-set').filter((e) => e.node === 1)
    expect(timers.map((e) => [e.key, protoOf(e)])).toEqual([
      ['a/tick', 'a'],
      ['b/tick', 'b'],
    ])
    expect(net.stats.byType).toEqual({ ping: 4 }) // counted by the children's own types
  })

  it('the trace names the child of every message, timer, event and request', () => {
    const net = new SimNetwork({ seed: 5, latency: 2, duplicate: 0.5 })
    const group = net.launch([1, 2], () => compose({ a: witness('a'), b: witness('b') }))
    group.request(2, { proto: 'a', req: 'x' })
    net.at(1, () => net.crash(2))
    net.at(1, () => group.request(2, { proto: 'b', req: 'while down' }))
    net.run()
    const kinds = new Set<string>()
    for (const e of net.trace) {
      if (!('proto' in e)) continue
      kinds.add(e.type)
      const detail = JSON.stringify(e)
      if (e.type === 'send') expect(e.proto).toBe((e.msg as { proto: string }).proto)
      else if (e.type === 'emit') expect(e.proto, detail).toBe((e.event as { proto: string }).proto)
      else if (e.type === 'request') expect(e.proto).toBe((e.req as { proto: string }).proto)
      else if (e.type.startsWith('timer')) expect(e.proto).toBe((e as { key: string }).key[0])
    }
    for (const type of ['send', 'deliver', 'drop', 'duplicate', 'timer-set', 'timer-fire'])
      expect(kinds, type).toContain(type)
    expect(kinds).toContain('emit')
    expect(kinds).toContain('request')
    // deliver, drop and duplicate share their send's proto (by message id)
    const protoOf = new Map<number, string | undefined>()
    for (const e of net.trace) {
      if (e.type === 'send') protoOf.set(e.id, e.proto)
      if (e.type === 'deliver' || e.type === 'drop' || e.type === 'duplicate')
        expect(e.proto).toBe(protoOf.get(e.id))
    }
  })

  it('a plain protocol’s trace has no proto field (readers of version 1 see what they saw)', () => {
    const net = new SimNetwork({ seed: 1 })
    net.launch([1, 2], () => witness('a'))
    net.run()
    expect(net.trace.length).toBeGreaterThan(5)
    expect(net.trace.filter((e) => 'proto' in e)).toEqual([])
    expect(net.traceDocument().version).toBe(1)
  })

  it('wiring hands the event to the other child as a request within the same step, on every seed', () => {
    type LeaderEv = { type: 'leader'; leader: NodeId; term: number }
    forSeeds(seeds, (seed) => {
      const rand = createRandom(`wiring/${seed}`)
      const wiredBeforeEmitReturned: boolean[] = []
      const factory = () => {
        const seen: { byLock?: LeaderEv } = {}
        const election: Protocol<{ type: 'term'; term: number }, never, LeaderEv> = {
          start(ctx) {
            ctx.setTimer('campaign', ctx.random() * 20)
          },
          onTimer(_key, ctx) {
            const term = ((ctx.storage.get('term') as number | undefined) ?? 0) + 1
            ctx.storage.set('term', term) // what follows waits for the commit: same step still
            ctx.broadcast({ type: 'term', term })
            const event: LeaderEv = { type: 'leader', leader: ctx.self, term }
            seen.byLock = undefined
            ctx.emit(event)
            const saw = seen.byLock as LeaderEv | undefined // set by the lock, meanwhile
            wiredBeforeEmitReturned.push(saw?.term === term && saw.leader === ctx.self)
          },
          onMessage(from, msg, ctx) {
            ctx.emit({ type: 'leader', leader: from, term: msg.term })
          },
        }
        const lock: Protocol<never, { type: 'coordinator'; id: NodeId; term: number }, string> = {
          onMessage() {},
          onRequest(req, ctx) {
            seen.byLock = { type: 'leader', leader: req.id, term: req.term }
            ctx.emit(`coordinator ${String(req.id)} for term ${req.term} at ${ctx.now()}`)
          },
        }
        return compose(
          { election, lock },
          {
            wiring: [
              {
                from: 'election',
                to: 'lock',
                map: (ev) => ({ type: 'coordinator', id: ev.leader, term: ev.term }),
              },
            ],
          },
        )
      }
      const net = new SimNetwork({
        seed,
        latency: { kind: 'uniform', min: 1, max: 10 },
        fifo: false,
        duplicate: 0.1,
      })
      net.launch([1, 2, 3], factory)
      const victim = rand.int(1, 3)
      net.at(rand.int(0, 15), () => net.crash(victim))
      net.at(rand.int(16, 30), () => net.restart(victim))
      net.run()

      // Every election event is followed by the lock's reaction, with nothing of another step
      // (a delivery, a timer, a request) in between, at the same virtual time.
      const trace = net.trace
      const inputs = new Set(['deliver', 'timer-fire', 'request', 'start'])
      let leaders = 0
      trace.forEach((e, i) => {
        if (e.type !== 'emit' || e.proto !== 'election') return
        leaders++
        const ev = (e.event as { event: LeaderEv }).event
        const next = trace.slice(i + 1).findIndex((x) => x.type === 'emit' && x.node === e.node)
        expect(next, `reaction to ${JSON.stringify(e)}`).toBeGreaterThanOrEqual(0)
        const reaction = trace[i + 1 + next] as Extract<TraceEvent, { type: 'emit' }>
        expect(reaction.proto).toBe('lock')
        expect(reaction.t).toBe(e.t)
        expect((reaction.event as { event: string }).event).toMatch(
          new RegExp(`^coordinator ${String(ev.leader)} for term ${ev.term} at`),
        )
        const between = trace.slice(i + 1, i + 1 + next)
        expect(
          between.filter((x) => inputs.has(x.type) && 'node' in x && x.node === e.node),
        ).toEqual([])
      })
      expect(leaders).toBeGreaterThanOrEqual(3)
      expect(wiredBeforeEmitReturned.length).toBeGreaterThan(0)
      expect(wiredBeforeEmitReturned.every(Boolean)).toBe(true)
    })
  })

  it('a crash stops every child; a restart starts every child afresh', () => {
    const starts: string[] = []
    const counter = (label: string): Protocol<never, never, string> => {
      let ticks = 0 // volatile: back to 0 in a new instance
      return {
        start(ctx) {
          starts.push(`${label}@${ctx.now()}`)
          ctx.setTimer('tick', 10)
        },
        onMessage() {},
        onTimer(_key, ctx) {
          ticks++
          ctx.emit(`${label} tick ${ticks}`)
          ctx.setTimer('tick', 10)
        },
      }
    }
    const net = new SimNetwork({ seed: 1 })
    net.launch([1], () => compose({ x: counter('x'), y: counter('y') }))
    net.at(35, () => net.crash(1))
    net.at(50, () => net.restart(1))
    net.run({ until: 75 })
    expect(starts).toEqual(['x@0', 'y@0', 'x@50', 'y@50'])
    const ticks = net.trace.flatMap((e) =>
      e.type === 'emit' ? [`${e.t} ${(e.event as { event: string }).event}`] : [],
    )
    expect(ticks).toEqual([
      '10 x tick 1',
      '10 y tick 1',
      '20 x tick 2',
      '20 y tick 2',
      '30 x tick 3',
      '30 y tick 3',
      '60 x tick 1',
      '60 y tick 1',
      '70 x tick 2',
      '70 y tick 2',
    ])
  })

  it('drops and reports an unknown tag or a malformed envelope, never throws', () => {
    const net = new SimNetwork({ seed: 1 })
    const group = net.launch([1, 2], () => compose({ a: witness('a') }))
    const raw = net.transport(2)
    const bad: unknown[] = [
      { proto: 'nope', msg: { type: 'ping', n: 9 } },
      'garbage',
      null,
      [1, 2],
      { proto: 7, msg: 1 },
      { proto: 'a' }, // no msg
      { msg: { type: 'ping', n: 9 } }, // no proto
    ]
    for (const msg of bad) raw.send(1, msg)
    group.request(1, { proto: 'zzz', req: 'x' } as never)
    group.request(1, 'not an envelope' as never)
    net.run()
    const notices = emitsOf(net, 1)
      .map((e) => (e as { event: { proto: string; event: unknown } }).event)
      .filter((e) => e.proto === 'compose')
      .map((e) => e.event)
    expect(notices).toEqual([
      { type: 'dropped', input: 'request', reason: 'unknown-protocol', tag: 'zzz' },
      { type: 'dropped', input: 'request', reason: 'malformed' },
      { type: 'dropped', input: 'message', reason: 'unknown-protocol', from: 2, tag: 'nope' },
      ...Array.from({ length: 6 }, () => ({
        type: 'dropped',
        input: 'message',
        reason: 'malformed',
        from: 2,
      })),
    ])
    expect(net.trace.filter((e) => e.type === 'error')).toEqual([])
    // the child still works
    expect(emitsOf(net, 1).some((e) => JSON.stringify(e).includes('a timer tick'))).toBe(true)
  })

  it('a wiring cycle stops at the depth limit with ERR_WIRING_DEPTH', () => {
    const echo = (): Protocol<never, number, number> => ({
      onMessage() {},
      onRequest: (n, ctx) => ctx.emit(n + 1),
    })
    const protocol = compose(
      { ping: echo(), pong: echo() },
      {
        maxWiringDepth: 5,
        wiring: [
          { from: 'ping', to: 'pong', map: (n) => n },
          { from: 'pong', to: 'ping', map: (n) => n },
        ],
      },
    )
    const errors: ProtocolError[] = []
    const events: unknown[] = []
    const handle = runProtocol(protocol, {
      transport: handTransport('n').transport as never,
      members: [],
      onError: (e) => errors.push(e),
      onEvent: (e) => events.push(e),
    })
    handle.request({ proto: 'ping', req: 0 })
    expect(errors).toHaveLength(1)
    const cause = errors[0]!.cause
    expect(isSdError(cause, 'ERR_WIRING_DEPTH')).toBe(true)
    if (isSdError(cause, 'ERR_WIRING_DEPTH'))
      expect(cause.chain).toEqual(['ping', 'pong', 'ping', 'pong', 'ping', 'pong', 'ping'])
    // The step failed as a whole: none of the events its wired children emitted leaves.
    expect(events).toEqual([])
    expect(() => compose({ a: echo() }, { maxWiringDepth: 0 })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
    )
  })

  it('refuses names that would make keys ambiguous, and the reserved name', () => {
    const p = witness('a')
    for (const name of ['', 'a/b', 'compose'])
      expect(() => compose({ [name]: p })).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
      )
    expect(() => compose({})).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }))
  })

  it('gives each child its own storage keys', () => {
    const keeper = (value: number): Protocol<never, never> => ({
      start(ctx) {
        ctx.storage.set('term', value + ((ctx.storage.get('term') as number | undefined) ?? 0))
        ctx.storage.set('seen', ctx.storage.keys())
      },
      onMessage() {},
    })
    const net = new SimNetwork()
    net.launch([1], () => compose({ a: keeper(1), b: keeper(100) }))
    net.crash(1)
    net.restart(1)
    expect(net.storageOf(1)).toEqual({
      'a/seen': ['seen', 'term'],
      'a/term': 2,
      'b/seen': ['seen', 'term'],
      'b/term': 200,
    })
  })

  it('hands transport signals to every child that listens', () => {
    const got: string[] = []
    const listener = (label: string): Protocol<never> => ({
      onMessage() {},
      onSignal: (signal) => void got.push(`${label} ${signal.type}`),
    })
    let signal: ((s: TransportSignal) => void) | undefined
    const transport: Transport<unknown> = {
      ...handTransport('n').transport,
      onSignal(handler) {
        signal = handler
        return () => {}
      },
    }
    runProtocol(compose({ a: listener('a'), quiet: { onMessage() {} }, b: listener('b') }), {
      transport: transport as never,
      members: [],
    })
    signal!({ type: 'peer-restarted', peer: 'm' })
    expect(got).toEqual(['a peer-restarted', 'b peer-restarted'])
  })

  it('composes compositions: the trace names the path, e.g. app/lock', () => {
    const net = new SimNetwork({ seed: 2 })
    net.launch([1, 2], () => compose({ app: compose({ lock: witness('l') }), side: witness('s') }))
    net.run()
    const protos = new Set(net.trace.flatMap((e) => ('proto' in e && e.proto ? [e.proto] : [])))
    expect([...protos].sort()).toEqual(['app/lock', 'side'])
    const timer = net.trace.find((e) => e.type === 'timer-set' && e.proto === 'app/lock')
    expect(timer).toMatchObject({ key: 'app/lock/tick' })
  })
})
