import { describe, expect, it } from 'vitest'
import {
  type Ctx,
  InvalidArgumentError,
  SimNetwork,
  SimulationError,
  TransportClosedError,
  UnknownNodeError,
} from '../src/index.js'
import { Echo, Ticker } from './protocols.js'

describe('crash and restart', () => {
  it('a crashed node loses its timers and its in-bound messages; a restart starts fresh', () => {
    const net = new SimNetwork({ seed: 3 })
    const instances: Ticker[] = []
    net.launch(['t'], () => {
      const ticker = new Ticker(10)
      instances.push(ticker)
      return ticker
    })
    net.addNode('peer')
    net.runFor(55)
    expect(instances[0]!.ticks).toBe(5)
    net.crash('t')
    net.transport('peer').send('t', 'hello?')
    net.runFor(100)
    expect(instances[0]!.ticks).toBe(5) // no timer fired while down
    expect(net.stats.dropped['receiver-crashed']).toBe(1)
    expect(net.isCrashed('t')).toBe(true)
    net.restart('t')
    net.runFor(25)
    expect(instances).toHaveLength(2)
    expect(instances[1]!.ticks).toBe(2) // fresh state, fresh timers
    const kinds = net.trace
      .filter((e) => e.type === 'crash' || e.type === 'restart' || e.type === 'start')
      .map((e) => e.type)
    expect(kinds).toEqual(['start', 'crash', 'restart', 'start'])
  })

  it('requests to a crashed node are recorded as dropped, not lost silently', () => {
    const net = new SimNetwork({ seed: 1 })
    net.launch(['a', 'b'], () => new Echo())
    net.crash('a')
    net.request('a', { to: 'b', n: 1 })
    net.run()
    expect(net.trace.find((e) => e.type === 'request')).toMatchObject({ node: 'a', dropped: true })
    expect(net.stats.sent).toBe(0)
  })

  it('refuses to restart a node that is up', () => {
    const net = new SimNetwork()
    net.addNode('a')
    expect(() => net.restart('a')).toThrow(InvalidArgumentError)
  })
})

describe('physical clocks', () => {
  it('ctx.now() reads offset + (1 + drift) * t, and timers run on local time', () => {
    const net = new SimNetwork({ seed: 1 })
    const ticks: Array<{ t: number; local: number }> = []
    net.launch(['fast', 'exact'], () => new Ticker(100))
    net.setClock('fast', { offset: 50, drift: 0.01 })
    net.onEmit((node, event, t) => {
      if (node === 'fast') ticks.push({ t, local: (event as { local: number }).local })
    })
    net.runFor(1000)
    // the fast clock's 100 ms timers fire every 100 / 1.01 ms of true time
    expect(ticks.length).toBe(Math.floor(1000 / (100 / 1.01)))
    for (const { t, local } of ticks) expect(local).toBeCloseTo(50 + t * 1.01, 6)
    expect(net.clockOf('exact')).toBe(1000)
  })

  it('a drift of 1e-6 gains about one second in 11.6 days, as the texts say', () => {
    const net = new SimNetwork()
    net.addNode('quartz', { drift: 1e-6 })
    const day = 86_400_000
    net.runFor(11.6 * day)
    expect(net.clockOf('quartz') - net.now).toBeCloseTo(1002, -1)
  })

  it('keeps the reading continuous when only the drift changes', () => {
    const net = new SimNetwork()
    net.addNode('n', { offset: 10 })
    net.runFor(100)
    net.setClock('n', { drift: 0.5 })
    expect(net.clockOf('n')).toBe(110)
    net.runFor(100)
    expect(net.clockOf('n')).toBe(260)
  })

  it('reads in whole ticks with a resolution, and records it in the trace', () => {
    const net = new SimNetwork()
    net.addNode('coarse', { offset: 3, resolution: 10 })
    net.runFor(25)
    expect(net.clockOf('coarse')).toBe(20) // 28 floored to a multiple of 10
    net.setClock('coarse', { drift: 1 / 3 })
    net.runFor(3)
    expect(net.clockOf('coarse')).toBe(30) // 28 + 3 x 4/3 = 32: continuous, then floored
    expect(net.trace.at(-1)).toMatchObject({ type: 'clock', node: 'coarse', resolution: 10 })
  })

  it('rejects impossible clocks', () => {
    const net = new SimNetwork()
    expect(() => net.addNode('r', { resolution: -1 })).toThrow(/resolution/)
    expect(() => net.addNode('x', { drift: 1 })).toThrow(InvalidArgumentError)
    expect(() => net.addNode('y', { offset: Number.NaN })).toThrow(/offset/)
  })
})

describe('bad input gets a typed error', () => {
  it('invalid link settings', () => {
    expect(() => new SimNetwork({ latency: -1 })).toThrow(InvalidArgumentError)
    expect(() => new SimNetwork({ loss: 1.5 })).toThrow(/probability in \[0, 1\]/)
    expect(() => new SimNetwork({ duplicate: -0.1 })).toThrow(InvalidArgumentError)
    expect(() => new SimNetwork({ latency: { kind: 'uniform', min: 5, max: 1 } })).toThrow(/below/)
    expect(() => new SimNetwork({ latency: { kind: 'exponential', mean: Number.NaN } })).toThrow(
      InvalidArgumentError,
    )
    const net = new SimNetwork()
    net.addNode('a')
    net.addNode('b')
    expect(() => net.setLink('a', 'b', { loss: 2 })).toThrow(InvalidArgumentError)
    expect(() => net.setLink('a', 'zz', { loss: 0 })).toThrow(UnknownNodeError)
  })

  it('a custom latency that returns garbage stops the run with the seed', () => {
    const net = new SimNetwork({ seed: 99, latency: () => -5 })
    net.addNode('a')
    net.addNode('b')
    expect(() => net.transport('a').send('b', 1)).toThrow(/custom latency returned -5/)
  })

  it('sending to an unknown node, or on a closed transport', async () => {
    const net = new SimNetwork()
    const a = net.addNode('a')
    expect(() => a.send('ghost', 1)).toThrow(UnknownNodeError)
    expect(() => a.send('ghost', 1)).toThrow(/"ghost"/)
    await a.close()
    expect(() => a.send('a', 1)).toThrow(TransportClosedError)
  })

  it('duplicate and malformed node ids', () => {
    const net = new SimNetwork()
    net.addNode(1)
    expect(() => net.addNode(1)).toThrow(/already exists/)
    expect(() => net.addNode(Number.NaN)).toThrow(InvalidArgumentError)
    expect(() => net.addNode({} as unknown as string)).toThrow(InvalidArgumentError)
  })

  it('a protocol that throws stops the run and names the node, the event and the seed', () => {
    const net = new SimNetwork({ seed: 'replay-me' })
    net.launch([1, 2], (self) => ({
      start(ctx: Ctx<string>) {
        if (self === 1) ctx.send(2, 'boom')
      },
      onMessage(_from: unknown, msg: string) {
        if (msg === 'boom') throw new Error('kaput')
      },
    }))
    let caught: unknown
    try {
      net.run()
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(SimulationError)
    const error = caught as SimulationError
    expect(error.node).toBe(2)
    expect(error.seed).toBe('replay-me')
    expect(error.message).toMatch(/node 2 threw while handling message \(from 1\): kaput/)
    expect(error.message).toMatch(/seed "replay-me"/)
    expect(net.trace.at(-1)).toMatchObject({ type: 'error', node: 2 })
  })

  it('a protocol timer with a bad delay is a protocol error', () => {
    const net = new SimNetwork()
    expect(() =>
      net.launch(['x'], () => ({
        start: (ctx: Ctx<never>) => ctx.setTimer('t', -1),
        onMessage() {},
      })),
    ).toThrow(/node "x" threw while handling start: timer "t": delay must be a finite number >= 0/)
  })
})

describe('running', () => {
  it('run() refuses to spin forever, run({ until }) stops on time, step() goes one event at a time', () => {
    const net = new SimNetwork()
    net.launch(['t'], () => new Ticker(10))
    expect(() => net.run({ maxEvents: 1000 })).toThrow(/did not quiesce within 1000 events/)
    const net2 = new SimNetwork()
    net2.launch(['t'], () => new Ticker(10))
    const result = net2.run({ until: 95 })
    expect(result).toEqual({ events: 9, time: 95, quiescent: false })
    expect(net2.step()).toBe(true)
    expect(net2.now).toBe(100)
    const empty = new SimNetwork()
    expect(empty.step()).toBe(false)
    expect(empty.run()).toEqual({ events: 0, time: 0, quiescent: true })
  })

  it('at() plans actions in virtual time, and refuses the past', () => {
    const net = new SimNetwork({ latency: 10 })
    const got: unknown[] = []
    net.addNode('a')
    net.addNode('b').onMessage((_f, m) => got.push(m))
    net.at(50, () => net.transport('a').send('b', 'at 50'))
    net.run()
    expect(got).toEqual(['at 50'])
    expect(net.now).toBe(60)
    expect(() => net.at(10, () => {})).toThrow(/past/)
    expect(() => net.request('a', 'late', 10)).toThrow(
      /request\(\): time must be finite and not in the past/,
    )
  })

  it('real-time mode maps virtual time onto the wall clock and can be aborted', async () => {
    const net = new SimNetwork({ latency: 40 })
    net.launch(['a', 'b'], () => new Echo())
    net.request('a', { to: 'b', n: 1 })
    const start = performance.now()
    const result = await net.runRealtime({ speed: 2 })
    const elapsed = performance.now() - start
    expect(result.quiescent).toBe(true)
    expect(net.now).toBe(80)
    expect(elapsed).toBeGreaterThanOrEqual(35) // 80 virtual ms at 2x is 40 real ms
    const ticking = new SimNetwork()
    ticking.launch(['t'], () => new Ticker(5))
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('enough')), 30)
    await expect(ticking.runRealtime({ signal: controller.signal })).rejects.toThrow('enough')
  })
})
