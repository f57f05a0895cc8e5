/**
 * `restore()` of every simulated synchronizer: `checkSnapshots` runs an instance restored from each
 * state reached (random inputs) beside the original, which must go on alike; a value of another
 * shape is refused with `InvalidArgumentError`, never read as a fresh node.
 */
import {
  type Ctx,
  InvalidArgumentError,
  type NodeId,
  type Protocol,
  type ProtocolFactory,
  type Random,
} from '@sd/transport'
import { checkSnapshots, type SnapshotInput } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { text } from '../../../test-support/snapshot-contract.js'
import { berkeley } from '../src/berkeley/protocol.js'
import { DisciplinedClock } from '../src/clock/disciplined.js'
import { cristian } from '../src/cristian/protocol.js'
import { answerNtpRequest } from '../src/ntp/server.js'
import type { NtpSimMessage } from '../src/ntp-sim/messages.js'
import { DEFAULT_EPOCH } from '../src/ntp-sim/options.js'
import { ntpSim } from '../src/ntp-sim/protocol.js'
import { WallStepWatch } from '../src/ntp-sim/step-watch.js'
import { temporalOrder } from '../src/temporal/protocol.js'

type Any = ProtocolFactory<unknown, unknown, unknown>
type Input = SnapshotInput<unknown, unknown>
type At = { self: NodeId; peers: readonly NodeId[]; timers: readonly string[] }

const pick = <T>(random: Random, list: readonly T[]): T => list[random.int(0, list.length - 1)]!
/** A timer set now, if any and if drawn; else `otherwise`. */
const timerOr = (random: Random, at: At, otherwise: () => Input): Input =>
  at.timers.length > 0 && random.int(0, 2) === 0
    ? { kind: 'timer', key: pick(random, at.timers) }
    : otherwise()

/** Every state reached is restored and goes on alike; many of them. */
function expectRestores(factory: Any, inputs: (random: Random, at: At) => Input, at = {}) {
  const report = checkSnapshots(factory, { seeds: 12, inputs, ...at })
  expect(report.restored).toBe(report.states)
  expect(report.restored).toBeGreaterThan(100)
}

/** Refuses each value with the typed error; a snapshot of its own it takes, and gives back. */
function expectRefusals(make: () => Protocol<unknown, unknown, unknown>, bad: unknown[]) {
  for (const value of bad) expect(() => make().restore!(value)).toThrow(InvalidArgumentError)
  const own = make().snapshot!()
  const other = make()
  other.restore!(JSON.parse(JSON.stringify(own)))
  expect(text(other.snapshot!())).toBe(text(own))
}

describe('cristian restore() (checkSnapshots)', () => {
  const make = cristian({ server: 1, samples: 2, handlingMs: 1, periodMs: 50 }) as unknown as Any
  it('restores every state of the server, requests held included', () => {
    expectRestores(make, (random, at) =>
      timerOr(random, at, () => ({
        kind: 'message',
        from: pick(random, at.peers),
        msg: { type: 'time-request', seq: random.int(0, 2) },
      })),
    )
  })
  it('restores every state of a client, its round and clock included', () => {
    expectRestores(
      make,
      (random, at) =>
        timerOr(random, at, () =>
          random.int(0, 3) === 0
            ? { kind: 'request', req: { type: 'sync' } }
            : {
                kind: 'message',
                from: pick(random, at.peers),
                msg: {
                  type: 'time-reply',
                  seq: random.int(0, 3),
                  utcMs: pick(random, [-300, -2, 0, 5, 40]),
                  handlingMs: random.int(0, 1),
                },
              },
        ),
      { self: 2, peers: [1, 3] },
    )
  })
  it('refuses a snapshot of another shape with a typed error', () => {
    expectRefusals(() => make(2) as never, [null, 7, {}, { seq: 1 }, { ...fresh(make), sent: -2 }])
  })
})

describe('berkeley restore() (checkSnapshots)', () => {
  const make = berkeley({ master: 1, periodMs: 50, thresholdMs: 100 }) as unknown as Any
  it('restores every state, a round polled and a master changed included', () => {
    expectRestores(
      make,
      (random, at) =>
        timerOr(random, at, () => {
          const from = pick(random, at.peers)
          switch (random.int(0, 5)) {
            case 0:
              return { kind: 'request', req: { type: 'sync' } }
            case 1:
              return { kind: 'request', req: { type: 'set-master', master: pick(random, [1, 2]) } }
            case 2:
              return {
                kind: 'message',
                from: 2,
                msg: {
                  type: 'berkeley-adjust',
                  round: 1,
                  adjustMs: pick(random, [-3, 1, 200]),
                  errorBoundMs: 1,
                },
              }
            case 3:
              return {
                kind: 'message',
                from,
                msg: { type: 'berkeley-poll', round: random.int(1, 3) },
              }
            default:
              return {
                kind: 'message',
                from,
                msg: {
                  type: 'berkeley-time',
                  round: random.int(1, 3),
                  clockMs: pick(random, [-40, -1, 0, 0.1, 3, 500]),
                },
              }
          }
        }),
      // Three machines polled: a round holds two answers, in the order they came.
      { peers: [2, 3, 4] },
    )
  })
  it('refuses a snapshot of another shape with a typed error', () => {
    expectRefusals(
      () => make(1) as never,
      [null, [], { roundNo: 0 }, { ...fresh(make), clock: {} }],
    )
  })
  it('writes no master as null, and takes it back', () => {
    const p = berkeley()(1)
    const s = p.snapshot!() as { master: unknown }
    expect(s.master).toBeNull()
    const q = berkeley({ master: 2 })(1)
    q.restore!(JSON.parse(text(s)))
    expect(text(q.snapshot!())).toBe(text(s))
  })
})

describe('ntp restore() (checkSnapshots)', () => {
  /** The last request each client instance sent each server, to answer it as the server would. */
  const sent = new Map<NodeId, Uint8Array>()
  const spy = (ctx: Ctx<NtpSimMessage, unknown>): Ctx<NtpSimMessage, unknown> => ({
    ...ctx,
    send(to, msg) {
      sent.set(to, Uint8Array.from(msg.bytes))
      ctx.send(to, msg)
    },
  })
  const ntp = ntpSim({ servers: [1, 2], pollMs: 100, replyTimeoutMs: 20 })
  const make = ((self: NodeId) => {
    const p = ntp(self)
    return {
      ...p,
      start: (ctx: Ctx<NtpSimMessage, never>) => p.start!(spy(ctx) as never),
      onRequest: (req: never, ctx: Ctx<NtpSimMessage, never>) =>
        p.onRequest!(req, spy(ctx) as never),
      onTimer: (key: string, ctx: Ctx<NtpSimMessage, never>) => p.onTimer!(key, spy(ctx) as never),
    }
  }) as unknown as Any

  it('restores every state of a client, its requests, filters and clock included', () => {
    expectRestores(
      make,
      (random, at) =>
        timerOr(random, at, () => {
          if (random.int(0, 4) === 0) return { kind: 'request', req: { type: 'sync' } }
          const from = pick(random, [1, 2])
          const request = sent.get(from)
          if (request === undefined || random.int(0, 7) === 0)
            return { kind: 'message', from, msg: { type: 'ntp', bytes: [1, 2, 3] } }
          // The server's clock off ours by some ms: a slew, a step, or nothing to do.
          const now = DEFAULT_EPOCH + pick(random, [-20, 0, 0.5, 4, 300])
          return {
            kind: 'message',
            from,
            msg: { type: 'ntp', bytes: [...answerNtpRequest(request, now, now)] },
          }
        }),
      { self: 3, peers: [1, 2] },
    )
  })
  it('refuses a snapshot of another shape with a typed error', () => {
    const bad = { ...fresh(make), outstanding: [{ server: 1, bytes: [1], transmit: {} }] }
    expectRefusals(() => make(3) as never, [null, 'x', { polling: true }, bad])
  })
})

describe('temporal order restore() (checkSnapshots)', () => {
  const make = temporalOrder<string>({ holdBackMs: 30 }) as unknown as Any
  it('restores every state, the hold-back queue in its order included', () => {
    expectRestores(make, (random, at) =>
      timerOr(random, at, () =>
        random.int(0, 3) === 0
          ? { kind: 'request', req: { type: 'broadcast', payload: `p${random.int(1, 2)}` } }
          : {
              kind: 'message',
              from: pick(random, at.peers),
              msg: {
                type: 'temporal',
                ts: pick(random, [-40, -30, -5, 0, 10]),
                seq: random.int(1, 3),
                payload: `q${random.int(1, 2)}`,
              },
            },
      ),
    )
  })
  it('refuses a snapshot of another shape with a typed error', () => {
    const bad = { ...fresh(make), queue: [{ from: 2, msg: { type: 'vector' } }] }
    expectRefusals(() => make(1) as never, [null, {}, { seq: 0, queue: [] }, bad])
  })
})

describe('the disciplined clock and the step watch restore', () => {
  it('a restored clock reads and corrects as the original, and twice is as once', () => {
    const a = new DisciplinedClock()
    a.read(5)
    a.adjust(10, 3) // slewing until 6,010
    a.adjust(20, -1)
    const b = new DisciplinedClock()
    const saved = JSON.parse(text(a.snapshot()))
    b.restore(saved)
    b.restore(saved)
    expect(text(b.snapshot())).toBe(text(a.snapshot()))
    for (const h of [20, 100, 1_999, 2_020, 50_000]) {
      expect(b.read(h)).toBe(a.read(h))
      expect(b.slewing(h)).toBe(a.slewing(h))
    }
    expect(b.adjust(60_000, 500)).toEqual(a.adjust(60_000, 500))
  })
  it('refuses another shape, and a rate that would stop or reverse the clock', () => {
    const good = new DisciplinedClock().snapshot()
    for (const bad of [
      null,
      {},
      { ...good, until: -Infinity },
      { ...good, rate: 0 },
      { ...good, initialized: 1 },
    ])
      expect(() => new DisciplinedClock().restore(bad)).toThrow(InvalidArgumentError)
  })
  it('the step watch takes back its last reading, or none', () => {
    const w = new WallStepWatch()
    w.observe(100, 0)
    const v = new WallStepWatch()
    v.restore(w.snapshot())
    expect(v.observe(1_100, 10)).toBe(w.observe(1_100, 10))
    v.restore(null)
    expect(v.snapshot()).toBeNull()
    expect(() => v.restore({ wallMs: 1 })).toThrow(InvalidArgumentError)
  })
})

/** A fresh instance's snapshot (node 1), as plain data to spoil one field of. */
function fresh(make: Any): Record<string, unknown> {
  return JSON.parse(text(make(1).snapshot!()))
}

describe('restore() under a moving clock (times measured before the snapshot)', () => {
  /** A context whose clocks read `at.t` (the wall clock `wallOffset` ahead); effects as text. */
  const ctxAt = (self: NodeId, peers: NodeId[], at: { t: number }, out: string[]) =>
    ({
      self,
      peers,
      now: () => at.t + 7,
      monotonic: () => at.t,
      send: (to: NodeId, msg: unknown) => out.push(`send ${String(to)} ${text(msg)}`),
      broadcast(msg: unknown) {
        for (const to of peers) out.push(`send ${String(to)} ${text(msg)}`)
      },
      setTimer: (key: string, ms: number) => out.push(`timer ${key} ${ms}`),
      cancelTimer: (key: string) => out.push(`cancel ${key}`),
      random: () => 0.25,
      emit: (event: unknown) => out.push(`emit ${text(event)}`),
    }) as unknown as Ctx<never, never>

  type Step = { t: number; run: (p: Protocol<never, never, never>, ctx: Ctx<never, never>) => void }

  /** Runs `before`, restores a fresh instance from the snapshot, runs `after` on both: alike. */
  function twins(make: Any, self: NodeId, peers: NodeId[], before: Step[], after: Step[]) {
    const at = { t: 0 }
    const out: string[] = []
    const a = make(self) as Protocol<never, never, never>
    const ctx = ctxAt(self, peers, at, out)
    for (const s of before) {
      at.t = s.t
      s.run(a, ctx)
    }
    const b = make(self) as Protocol<never, never, never>
    b.restore!(JSON.parse(text(a.snapshot!())))
    const outB: string[] = []
    const ctxB = ctxAt(self, peers, at, outB)
    const mark = out.length
    for (const s of after) {
      at.t = s.t
      s.run(a, ctx)
      s.run(b, ctxB)
    }
    expect(outB).toEqual(out.slice(mark))
    expect(outB.some((e) => e.startsWith('emit'))).toBe(true)
    expect(text(b.snapshot!())).toBe(text(a.snapshot!()))
  }
  const msg =
    (from: NodeId, m: unknown): Step['run'] =>
    (p, ctx) =>
      p.onMessage(from, m as never, ctx)
  const req =
    (r: unknown): Step['run'] =>
    (p, ctx) =>
      p.onRequest!(r as never, ctx)

  it("cristian: a round's request time and best sample", () => {
    const make = cristian({ server: 1, samples: 2 }) as unknown as Any
    twins(
      make,
      2,
      [1],
      [
        { t: 10, run: req({ type: 'sync' }) },
        { t: 18, run: msg(1, { type: 'time-reply', seq: 1, utcMs: 30, handlingMs: 1 }) },
      ],
      [{ t: 40, run: msg(1, { type: 'time-reply', seq: 2, utcMs: 45, handlingMs: 0 }) }],
    )
  })

  it("berkeley: a round's poll time", () => {
    const make = berkeley({ master: 1 }) as unknown as Any
    twins(
      make,
      1,
      [2, 3],
      [
        { t: 5, run: req({ type: 'sync' }) },
        { t: 9, run: msg(2, { type: 'berkeley-time', round: 1, clockMs: 20 }) },
      ],
      [{ t: 14, run: msg(3, { type: 'berkeley-time', round: 1, clockMs: 3 }) }],
    )
  })

  it("ntp: requests' send times, samples' ages and the step watch's last reading", () => {
    const sentBytes = new Map<NodeId, Uint8Array>()
    const make = ntpSim({ servers: [1, 2], pollMs: 100, replyTimeoutMs: 50 }) as unknown as Any
    const reply =
      (from: NodeId): Step['run'] =>
      (p, ctx) => {
        const now = DEFAULT_EPOCH + 1_000 + Number(from)
        const bytes = [...answerNtpRequest(sentBytes.get(from)!, now, now)]
        p.onMessage(from, { type: 'ntp', bytes } as never, ctx)
      }
    const capture: Step['run'] = (p, ctx) =>
      p.onTimer!('poll', {
        ...ctx,
        send(to: NodeId, m: NtpSimMessage) {
          sentBytes.set(to, Uint8Array.from(m.bytes))
          ctx.send(to, m as never)
        },
      } as never)
    twins(
      make,
      3,
      [1, 2],
      [
        { t: 100, run: capture },
        { t: 104, run: reply(1) },
        { t: 200, run: capture },
        { t: 203, run: reply(1) },
      ],
      [{ t: 250, run: reply(2) }],
    )
  })
})
