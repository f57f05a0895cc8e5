import { describe, expect, it } from 'vitest'
import { type Ctx, type NodeId, SimNetwork } from '../src/index.js'

type Ev = { what: string; at: number; mono: number }

/** Pings its peer every 10 ms; logs each ping it gets and each tick, with both clocks. */
const pinger = (self: NodeId) => {
  const log = (ctx: Ctx<string, Ev>, what: string) =>
    ctx.emit({ what, at: ctx.now(), mono: ctx.monotonic() })
  return {
    start(ctx: Ctx<string, Ev>) {
      ctx.setTimer('tick', 10)
    },
    onMessage(from: NodeId, msg: string, ctx: Ctx<string, Ev>) {
      log(ctx, `${msg} from ${String(from)}`)
    },
    onTimer(key: string, ctx: Ctx<string, Ev>) {
      log(ctx, key)
      ctx.send(self === 1 ? 2 : 1, `ping ${ctx.monotonic()}`)
      ctx.setTimer('tick', 10)
    },
  }
}

function events(net: SimNetwork, node: NodeId): Array<Ev & { t: number }> {
  const out: Array<Ev & { t: number }> = []
  for (const e of net.trace)
    if (e.type === 'emit' && e.node === node) out.push({ ...(e.event as Ev), t: e.t })
  return out
}

describe('SimNetwork pause and resume', () => {
  it('holds a paused node inputs and timers, then handles them in order at resume', () => {
    const net = new SimNetwork({ seed: 3, latency: { kind: 'fixed', ms: 2 } })
    net.launch([1, 2], pinger)
    net.at(25, () => net.pause(2))
    net.at(75, () => net.resume(2))
    net.run({ until: 100 })
    const during = events(net, 2).filter((e) => e.t > 25 && e.t < 75)
    expect(during).toEqual([])
    // At resume: its late tick and the pings that waited, all at t = 75, pings in send order.
    const atResume = events(net, 2).filter((e) => e.t === 75)
    expect(atResume.length).toBeGreaterThan(3)
    // The timer that came due at 30 is handled late, once (not once per tick missed).
    expect(atResume.filter((e) => e.what === 'tick')).toHaveLength(1)
    const pings = atResume.filter((e) => e.what.startsWith('ping')).map((e) => e.what)
    expect(pings).toEqual(
      [...pings].sort((a, b) => Number(a.split(' ')[1]) - Number(b.split(' ')[1])),
    )
    // Node 1 went on meanwhile.
    expect(events(net, 1).filter((e) => e.t > 25 && e.t < 75).length).toBeGreaterThan(3)
    const kinds = net.trace.filter((e) => e.type === 'pause' || e.type === 'resume')
    expect(kinds).toEqual([
      { t: 25, type: 'pause', node: 2 },
      { t: 75, type: 'resume', node: 2, backlog: atResume.length },
    ])
  })

  it('a paused node that crashes loses what waited (dropped as receiver-crashed)', () => {
    const net = new SimNetwork({ seed: 3, latency: { kind: 'fixed', ms: 2 } })
    net.launch([1, 2], pinger)
    net.at(25, () => net.pause(2))
    net.at(60, () => net.crash(2))
    net.run({ until: 100 })
    expect(events(net, 2).filter((e) => e.t > 25)).toEqual([])
    expect(net.stats.dropped['receiver-crashed']).toBeGreaterThan(0)
    expect(net.isPaused(2)).toBe(false)
  })

  it('a replaced timer held in a backlog does not fire', () => {
    const fired: string[] = []
    const net = new SimNetwork({ seed: 1 })
    net.launch([1], () => ({
      start(ctx: Ctx<never, never>) {
        ctx.setTimer('a', 10)
      },
      onMessage() {},
      onRequest(_req: unknown, ctx: Ctx<never, never>) {
        ctx.setTimer('a', 50) // replaces the one that came due during the pause
      },
      onTimer(key: string, ctx: Ctx<never, never>) {
        fired.push(`${key}@${ctx.monotonic()}`)
      },
    }))
    net.at(5, () => net.pause(1))
    net.request(1, 'later', 20) // waits in the backlog behind... nothing: it came due after the timer
    net.at(30, () => net.resume(1))
    net.run()
    // The timer of 10 ms came due at 10, before the request (20): both waited; the timer fired at
    // resume, then the request set a new one, which fired 50 ms later.
    expect(fired).toEqual(['a@30', 'a@80'])
  })
})

describe('SimNetwork clock steps', () => {
  it('steps the wall clock only: the monotonic clock and timers go on', () => {
    const net = new SimNetwork({ seed: 3, latency: { kind: 'fixed', ms: 2 } })
    net.addNode(1, { offset: 500, drift: 0.01 })
    net.launch([1, 2], pinger)
    net.at(33, () => net.stepClock(1, -1000))
    net.run({ until: 60 })
    const ticks = events(net, 1).filter((e) => e.what === 'tick')
    expect(ticks).toHaveLength(6)
    for (const [i, e] of ticks.entries()) {
      expect(e.t).toBeCloseTo((10 * (i + 1)) / 1.01, 9)
      expect(e.mono).toBeCloseTo(e.t * 1.01, 9)
      const expectedWall = 500 + e.t * 1.01 - (e.t > 33 ? 1000 : 0)
      expect(e.at).toBeCloseTo(expectedWall, 9)
    }
    expect(net.trace).toContainEqual({ t: 33, type: 'clock-step', node: 1, deltaMs: -1000 })
    expect(net.monotonicOf(1)).toBeCloseTo(60 * 1.01, 9)
    expect(() => net.stepClock(1, Number.NaN)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
    )
  })

  it('a change of offset through setClock steps the wall clock, not the monotonic one', () => {
    const net = new SimNetwork({ seed: 3 })
    net.addNode(1)
    net.at(10, () => net.setClock(1, { offset: 5000, drift: 0.5 }))
    net.run({ until: 20 })
    expect(net.clockOf(1)).toBeCloseTo(20 + 5000 + 5, 9)
    expect(net.monotonicOf(1)).toBeCloseTo(10 + 10 * 1.5, 9)
  })
})
