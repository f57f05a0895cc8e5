import { type NodeId, type Protocol, SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { seededRandom } from '../test/execution.js'
import { compareLamport, type LamportTimestamp } from './lamport.js'
import {
  type TotalOrderEvent,
  type TotalOrderMessage,
  type TotalOrderRequest,
  totalOrderBroadcast,
} from './total-order/index.js'

const SEEDS = Number(process.env.SD_SEEDS ?? 200)

function runTotal(seed: number) {
  const rand = seededRandom(seed)
  const n = 1 + Math.floor(rand() * 6)
  const ids: NodeId[] = Array.from({ length: n }, (_, i) => (i % 3 === 2 ? `n${i}` : i * 10))
  const net = new SimNetwork({
    seed,
    latency: { kind: 'uniform', min: 1, max: 40 },
    fifo: seed % 2 === 0,
    duplicate: seed % 5 === 0 ? 0.2 : 0,
    trace: false,
  })
  const sequences = new Map<NodeId, { payload: string; timestamp: LamportTimestamp }[]>(
    ids.map((id) => [id, []]),
  )
  const sent: string[] = []
  const onEmit = (node: NodeId, event: TotalOrderEvent<string>) => {
    if (event.type === 'deliver') {
      const seq = sequences.get(node)!
      expect(event.index).toBe(seq.length)
      seq.push({ payload: event.payload, timestamp: event.timestamp })
    } else if (event.type === 'broadcast') {
      sent.push(event.payload)
    } else {
      throw new Error(`unexpected ${JSON.stringify(event)}`)
    }
  }
  net.launch(ids, () => totalOrderBroadcast<string>(), { onEmit })
  const count = 1 + Math.floor(rand() * 12)
  for (let k = 0; k < count; k++) {
    const node = ids[Math.floor(rand() * n)]!
    // Coarse times: several broadcasts start at the same instant, so Lamport times tie.
    net.request<TotalOrderRequest<string>>(
      node,
      { type: 'broadcast', payload: `${node}#${k}` },
      10 * Math.floor(rand() * 5),
    )
  }
  net.run()
  return { ids, sequences, sent, stats: net.stats, n, count }
}

describe('total order broadcast in the simulator', () => {
  it(`every member delivers the same sequence, all of it, over ${SEEDS} seeds`, () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const { ids, sequences, sent, stats, n, count } = runTotal(seed)
      const reference = sequences.get(ids[0]!)!
      expect(reference.length, `seed ${seed}`).toBe(sent.length)
      for (const id of ids) {
        expect(sequences.get(id), `seed ${seed}, node ${id}`).toEqual(reference)
      }
      // The agreed order is the (T, pid) order.
      for (let i = 1; i < reference.length; i++) {
        expect(compareLamport(reference[i - 1]!.timestamp, reference[i]!.timestamp)).toBeLessThan(0)
      }
      // n(n - 1) messages per broadcast.
      expect(stats.sent, `seed ${seed}`).toBe(count * n * (n - 1))
    }
  })

  it('is a Protocol of @sd/transport as far as TypeScript is concerned', () => {
    const p: Protocol<
      TotalOrderMessage<string>,
      TotalOrderRequest<string>,
      TotalOrderEvent<string>
    > = totalOrderBroadcast<string>()
    expect(typeof p.onMessage).toBe('function')
  })

  it('reports malformed messages and messages from strangers', () => {
    const net = new SimNetwork({ seed: 3 })
    const events: unknown[] = []
    net.onEmit((_n, e) => events.push(e))
    net.launch(['a', 'b'], () => totalOrderBroadcast<string>())
    net.addNode('x').send('a', { type: 'to-msg', link: 0, time: 1, payload: 'p' })
    net.transport('b').send('a', { type: 'to-msg', link: -1, time: 1, payload: 'p' })
    net.transport('b').send('a', { type: 'nope' })
    net.run()
    expect(events).toEqual([
      { type: 'ignored', from: 'x', reason: '"x" is not a member of the group' },
      { type: 'ignored', from: 'b', reason: 'bad link sequence number' },
      { type: 'ignored', from: 'b', reason: 'unknown message type "nope"' },
    ])
  })
})
