import { type NodeId, type Protocol, SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { seededRandom } from '../test/execution.js'
import {
  type CausalBroadcastRequest,
  CausalBuffer,
  type CausalEvent,
  type CausalMessage,
  causalBroadcast,
} from './causal-delivery/index.js'
import { CausalHistory } from './causality.js'

const SEEDS = Number(process.env.SD_SEEDS ?? 200)

interface Outcome {
  ids: NodeId[]
  /** Per node: payload ids in delivery order. */
  delivered: Map<NodeId, string[]>
  history: CausalHistory
  /** payload -> event index of its broadcast in `history`. */
  broadcastOf: Map<string, number>
  delayed: number
}

/** A random run: initial broadcasts at random times, and replies triggered by deliveries. */
function runCausal(seed: number, duplicate = 0): Outcome {
  const rand = seededRandom(seed)
  const n = 2 + Math.floor(rand() * 5)
  const ids: NodeId[] = Array.from({ length: n }, (_, i) => (i % 2 ? `n${i}` : i))
  const net = new SimNetwork({
    seed,
    latency: { kind: 'uniform', min: 1, max: 60 },
    fifo: false,
    duplicate,
    trace: false,
  })
  const out: Outcome = {
    ids,
    delivered: new Map(ids.map((id) => [id, []])),
    history: new CausalHistory(),
    broadcastOf: new Map(),
    delayed: 0,
  }
  let made = 0
  const counters = new Map<NodeId, number>()
  const request = (node: NodeId, at?: number) => {
    const k = (counters.get(node) ?? 0) + 1
    counters.set(node, k)
    made++
    net.request<CausalBroadcastRequest<string>>(
      node,
      { type: 'broadcast', payload: `${node}:${k}` },
      at,
    )
  }
  const onEmit = (node: NodeId, event: CausalEvent<string>) => {
    if (event.type === 'broadcast') {
      out.broadcastOf.set(event.payload, out.history.record(node))
    } else if (event.type === 'deliver') {
      out.delivered.get(node)!.push(event.payload)
      if (event.delayed) out.delayed++
      if (event.from !== node) {
        out.history.record(node, [out.broadcastOf.get(event.payload)!])
        if (made < 40 && rand() < 0.35) request(node)
      }
    } else if (event.type === 'ignored') {
      throw new Error(`unexpected ignored message: ${event.reason}`)
    }
  }
  net.launch(ids, () => causalBroadcast<string>(), { onEmit })
  for (let i = 0; i < 4 + Math.floor(rand() * 8); i++) {
    request(ids[Math.floor(rand() * n)]!, Math.floor(rand() * 100))
  }
  net.run()
  return out
}

describe('causal broadcast in the simulator (non-FIFO links, random delays)', () => {
  it(`never delivers out of causal order and delivers everything, over ${SEEDS} seeds`, () => {
    let delayed = 0
    for (let seed = 1; seed <= SEEDS; seed++) {
      const o = runCausal(seed, seed % 4 === 0 ? 0.2 : 0)
      const all = [...o.broadcastOf.keys()]
      for (const id of o.ids) {
        const seq = o.delivered.get(id)!
        // Everything, exactly once.
        expect([...seq].sort(), `seed ${seed}, node ${id}`).toEqual([...all].sort())
        // m1 -> m2 (their broadcasts) implies m1 delivered first.
        const position = new Map(seq.map((m, i) => [m, i]))
        for (const m1 of all) {
          for (const m2 of all) {
            if (o.history.happenedBefore(o.broadcastOf.get(m1)!, o.broadcastOf.get(m2)!)) {
              expect(
                position.get(m1)! < position.get(m2)!,
                `seed ${seed}: ${m1} before ${m2} at ${id}`,
              ).toBe(true)
            }
          }
        }
      }
      delayed += o.delayed
    }
    // The property is not vacuous: the network did reorder, and the buffer held messages back.
    expect(delayed).toBeGreaterThan(50)
  })

  it('is a Protocol of @sd/transport as far as TypeScript is concerned', () => {
    const p: Protocol<
      CausalMessage<number>,
      CausalBroadcastRequest<number>,
      CausalEvent<number>
    > = causalBroadcast<number>()
    expect(typeof p.onMessage).toBe('function')
  })
})

describe('CausalBuffer', () => {
  it('holds a message until its causal past is delivered, and drops duplicates', () => {
    const a = new CausalBuffer<string>('a', ['b', 'c'])
    const b = new CausalBuffer<string>('b', ['a', 'c'])
    const c = new CausalBuffer<string>('c', ['a', 'b'])
    const m1 = a.broadcast('m1').message
    expect(b.receive('a', m1).map((d) => d.payload)).toEqual(['m1'])
    const m2 = b.broadcast('reply to m1').message
    // c gets the reply first: it must wait for m1.
    expect(c.receive('b', m2)).toEqual([])
    expect(c.pending).toBe(1)
    const got = c.receive('a', m1)
    expect(got.map((d) => [d.payload, d.delayed])).toEqual([
      ['m1', false],
      ['reply to m1', true],
    ])
    expect(got[1]!.local).toEqual([1, 1, 0])
    expect(c.receive('a', m1)).toEqual([])
    expect(c.pending).toBe(0)
  })

  it('refuses strangers and malformed vectors', () => {
    const a = new CausalBuffer<string>('a', ['b'])
    expect(() => a.receive('z', { type: 'causal', clock: [1, 0], payload: '' })).toThrow(
      /not another member/,
    )
    expect(() => a.receive('b', { type: 'causal', clock: [1], payload: '' })).toThrow(
      /malformed vector/,
    )
    expect(() => a.receive('b', { type: 'causal', clock: [0, -1], payload: '' })).toThrow(
      /malformed vector/,
    )
  })

  it('the protocol reports a bad packet as an event instead of crashing', () => {
    const net = new SimNetwork({ seed: 1 })
    const events: unknown[] = []
    net.onEmit((_n, e) => events.push(e))
    net.launch([1, 2], () => causalBroadcast<string>())
    net.transport(1).send(2, { type: 'causal', clock: 'nope' })
    net.transport(1).send(2, 42)
    net.run()
    expect(events).toMatchObject([
      { type: 'ignored', from: 1 },
      { type: 'ignored', from: 1 },
    ])
  })
})
