import type { NodeId, ProtocolFactory, Random } from '@sd/transport'
import { checkSnapshots, runInSim, type SnapshotInput } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { recordingSnapshots, text } from '../../../test-support/snapshot-contract.js'
import { type CausalMessage, causalBroadcast } from '../src/causal-delivery/index.js'
import { InvalidClockArgumentError } from '../src/errors.js'
import type { ClockProtocol, ProtocolContext } from '../src/protocol.js'
import { type TotalOrderMessage, totalOrderBroadcast } from '../src/total-order/index.js'
import { seededRandom } from './execution.js'

const SEEDS = Number(process.env.SD_SEEDS ?? 60)

/** A context that records nothing but what the protocol sends: enough to feed inputs by hand. */
function ctxOf<M>(self: NodeId, peers: NodeId[]): ProtocolContext<M, never> & { sent: M[] } {
  const sent: M[] = []
  return {
    self,
    peers,
    sent,
    now: () => 0,
    send: (_to, msg) => sent.push(msg),
    broadcast: (msg) => sent.push(msg),
    setTimer: () => {},
    cancelTimer: () => {},
    random: () => 0,
    emit: () => {},
  }
}

/** A seeded run on reordering links with broadcasts at random times; each node's snapshots. */
const runOf =
  <M, E>(make: () => ClockProtocol<M, { type: 'broadcast'; payload: string }, E>) =>
  (seed: number) => {
    const rand = seededRandom(seed)
    const ids: NodeId[] = [1, 'b', 3].slice(0, 2 + (seed % 2))
    const rec = recordingSnapshots(make)
    runInSim(ids, rec.factory, {
      seed,
      net: { latency: { kind: 'uniform', min: 1, max: 40 }, fifo: false, trace: false },
      plan: (_net, group) => {
        const count = 1 + Math.floor(rand() * 5)
        for (let i = 0; i < count; i++) {
          const node = ids[Math.floor(rand() * ids.length)]!
          group.request(node, { type: 'broadcast', payload: `p${i}` }, Math.floor(rand() * 60))
        }
      },
    })
    return rec
  }

const broadcasters = {
  'causal broadcast': runOf(() => causalBroadcast<string>()),
  'total order broadcast': runOf(() => totalOrderBroadcast<string>()),
}

describe.each(Object.entries(broadcasters))('%s snapshots in simulated runs', (_name, run) => {
  it(`are plain, unshared and deterministic after every step, over ${SEEDS} seeds`, () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const first = run(seed)
      expect(first.problems, `seed ${seed}`).toEqual([])
      const second = run(seed)
      expect([...second.log], `seed ${seed}: same inputs, same snapshots`).toEqual([...first.log])
      for (const [node, snaps] of first.log) {
        // The run moved every node: broadcasts and deliveries show in its state.
        expect(new Set(snaps).size, `seed ${seed}, node ${String(node)}`).toBeGreaterThan(1)
      }
    }
  })
})

describe('causal broadcast snapshots are canonical', () => {
  it('two messages buffered in either order give one snapshot, and buffering changes it', () => {
    // a broadcasts twice; b broadcasts after delivering a's first. c hears a's second and b's
    // message before a's first: both wait, in whichever order they came.
    const a = causalBroadcast<string>()
    const b = causalBroadcast<string>()
    const ca = ctxOf<CausalMessage<string>>('a', ['b', 'c'])
    const cb = ctxOf<CausalMessage<string>>('b', ['a', 'c'])
    a.start?.(ca)
    b.start?.(cb)
    a.onRequest?.({ type: 'broadcast', payload: 'a1' }, ca)
    a.onRequest?.({ type: 'broadcast', payload: 'a2' }, ca)
    b.onMessage('a', ca.sent[0]!, cb)
    b.onRequest?.({ type: 'broadcast', payload: 'b1' }, cb)
    const [a2, b1] = [ca.sent[1]!, cb.sent[0]!]
    const receive = (order: [NodeId, CausalMessage<string>][]) => {
      const c = causalBroadcast<string>()
      const cc = ctxOf<CausalMessage<string>>('c', ['a', 'b'])
      c.start?.(cc)
      const fresh = text(c.snapshot?.())
      for (const [from, m] of order) c.onMessage(from, m, cc)
      return { fresh, held: text(c.snapshot?.()), c, cc }
    }
    const one = receive([
      ['a', a2],
      ['b', b1],
    ])
    const other = receive([
      ['b', b1],
      ['a', a2],
    ])
    expect(one.held).toBe(other.held)
    expect(one.held).not.toBe(one.fresh)
    // Delivering a's first releases both: the state moves on again.
    one.c.onMessage('a', ca.sent[0]!, one.cc)
    expect(text(one.c.snapshot?.())).not.toBe(one.held)
  })
})

describe('total order broadcast snapshots are canonical', () => {
  /** Node 1 fed `inputs`; its snapshot after each. */
  const feed = (inputs: [NodeId, TotalOrderMessage<string>][]) => {
    const p = totalOrderBroadcast<string>()
    const ctx = ctxOf<TotalOrderMessage<string>>(1, [2, 3])
    p.start?.(ctx)
    const snaps = [text(p.snapshot?.())]
    for (const [from, m] of inputs) {
      p.onMessage(from, m, ctx)
      snaps.push(text(p.snapshot?.()))
    }
    return snaps
  }
  const msg = (link: number, time: number, payload: string): TotalOrderMessage<string> => ({
    type: 'to-msg',
    link,
    time,
    payload,
  })

  it('broadcasts heard from two peers in either order give one snapshot', () => {
    const x = feed([
      [2, msg(0, 1, 'x')],
      [3, msg(0, 1, 'y')],
    ])
    const y = feed([
      [3, msg(0, 1, 'y')],
      [2, msg(0, 1, 'x')],
    ])
    expect(x.at(-1)).toBe(y.at(-1))
    // Every message changed the state (queue, latest, links, clock).
    expect(new Set(x).size).toBe(3)
  })

  it('a link gap filled is the same state as no gap at all', () => {
    const inOrder = feed([
      [2, msg(0, 1, 'x')],
      [2, msg(1, 2, 'z')],
    ])
    const early = feed([
      [2, msg(1, 2, 'z')],
      [2, msg(0, 1, 'x')],
    ])
    // The early message is state: it is held until its gap fills.
    expect(early[1]).not.toBe(early[0])
    expect(early.at(-1)).toBe(inOrder.at(-1))
  })
})

describe('causal broadcast restore() (checkSnapshots: a restored instance goes on alike)', () => {
  type Input = SnapshotInput<CausalMessage<string>, { type: 'broadcast'; payload: string }>
  /** Broadcasts of its own, and peers' messages with small vectors (some held, some due). */
  const inputs = (random: Random, at: { peers: readonly NodeId[] }): Input => {
    if (random.int(0, 3) === 0)
      return { kind: 'request', req: { type: 'broadcast', payload: `p${random.int(1, 2)}` } }
    const from = at.peers[random.int(0, at.peers.length - 1)]!
    const clock = [random.int(0, 2), random.int(0, 2), random.int(0, 2)]
    return { kind: 'message', from, msg: { type: 'causal', clock, payload: `q${clock.join('')}` } }
  }

  it('restores every state reached, held messages included', () => {
    const factory = () => causalBroadcast<string>()
    const report = checkSnapshots(factory as ProtocolFactory<CausalMessage<string>, never>, {
      seeds: 20,
      inputs: inputs as never,
    })
    expect(report.restored).toBe(report.states)
    expect(report.restored).toBeGreaterThan(100)
  })
})

describe('total order broadcast restore() (checkSnapshots: a restored instance goes on alike)', () => {
  type Input = SnapshotInput<TotalOrderMessage<string>, { type: 'broadcast'; payload: string }>
  /** Broadcasts of its own, and peers' broadcasts and acks on links that skip ahead at times. */
  const inputs = (random: Random, at: { peers: readonly NodeId[] }): Input => {
    if (random.int(0, 3) === 0)
      return { kind: 'request', req: { type: 'broadcast', payload: `p${random.int(1, 2)}` } }
    const from = at.peers[random.int(0, at.peers.length - 1)]!
    const link = random.int(0, 3)
    const time = random.int(0, 6)
    const msg: TotalOrderMessage<string> =
      random.int(0, 1) === 0
        ? { type: 'to-msg', link, time, payload: `q${time}` }
        : { type: 'to-ack', link, time, of: { time: random.int(1, 4), pid: from } }
    return { kind: 'message', from, msg }
  }

  it('restores every state reached, early messages included', () => {
    const factory = () => totalOrderBroadcast<string>()
    const report = checkSnapshots(factory as ProtocolFactory<TotalOrderMessage<string>, never>, {
      seeds: 20,
      inputs: inputs as never,
    })
    expect(report.restored).toBe(report.states)
    expect(report.restored).toBeGreaterThan(100)
  })

  it('refuses a snapshot of another shape with a typed error, and takes null as not started', () => {
    const p = totalOrderBroadcast<string>()
    for (const bad of [{}, 7, { time: 1 }, { causal: [] }])
      expect(() => p.restore?.(bad)).toThrow(InvalidClockArgumentError)
    const ctx = ctxOf<TotalOrderMessage<string>>(1, [2, 3])
    const q = totalOrderBroadcast<string>()
    q.start?.(ctx)
    q.onRequest?.({ type: 'broadcast', payload: 'x' }, ctx)
    const saved = q.snapshot?.()
    const good = totalOrderBroadcast<string>()
    good.restore?.(saved)
    expect(text(good.snapshot?.())).toBe(text(saved))
    good.restore?.(null)
    expect(good.snapshot?.()).toBeNull()
  })
})
