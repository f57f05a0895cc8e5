import { describe, expect, it } from 'vitest'
import { TransportClosedError, UnknownNodeError } from '../errors.js'
import type { NodeId } from '../ids.js'
import type { Transport } from '../transport.js'

/** What an adapter provides to run the compliance suite. */
export interface TransportHarness {
  /** Transports for these ids, each able to reach all the others. */
  create(ids: NodeId[]): Promise<Transport<unknown>[]>
  /** Lets the network make progress until `done()` holds; rejects if it never does. */
  settle(done: () => boolean, what: string): Promise<void>
  /** An id that none of the created transports can reach. */
  unreachableId?: NodeId
  /** Frees everything created. */
  teardown(): Promise<void>
}

interface Received {
  from: NodeId
  msg: unknown
}

/**
 * The contract every `Transport` adapter must meet, as a vitest suite:
 * `describeTransportCompliance('sim', async () => harness)`. Links are expected reliable and FIFO.
 */
export function describeTransportCompliance(
  name: string,
  setup: () => Promise<TransportHarness> | TransportHarness,
): void {
  describe(`Transport compliance: ${name}`, () => {
    const withNet =
      (
        ids: NodeId[],
        body: (h: TransportHarness, ts: Transport<unknown>[], inbox: Received[][]) => Promise<void>,
      ) =>
      async () => {
        const harness = await setup()
        try {
          const transports = await harness.create(ids)
          const inbox = transports.map((t) => {
            const got: Received[] = []
            t.onMessage((from, msg) => got.push({ from, msg }))
            return got
          })
          await body(harness, transports, inbox)
        } finally {
          await harness.teardown()
        }
      }

    it(
      'exposes its own id as self',
      withNet(['a', 7], async (_h, [a, b]) => {
        expect(a!.self).toBe('a')
        expect(b!.self).toBe(7)
        expect(a!.closed).toBe(false)
      }),
    )

    it(
      'delivers each payload with the sender id and an equal value',
      withNet(['a', 'b'], async (h, [a], [, inB]) => {
        const payloads = [
          { type: 'ping', n: 1 },
          { nested: { list: [1, 2.5, -3, null, true], text: 'olá, 世界 🚀' } },
          [1, 'two', { three: 3 }],
          'plain string',
          42,
          { empty: {} },
        ]
        for (const p of payloads) a!.send('b', p)
        await h.settle(() => inB!.length === payloads.length, `${payloads.length} payloads at b`)
        expect(inB!.map((r) => r.from)).toEqual(payloads.map(() => 'a'))
        expect(inB!.map((r) => r.msg)).toEqual(payloads)
      }),
    )

    it(
      'keeps the order of messages between a pair (FIFO)',
      withNet(['a', 'b'], async (h, [a], [, inB]) => {
        const count = 300
        for (let i = 0; i < count; i++) a!.send('b', { seq: i })
        await h.settle(() => inB!.length >= count, `${count} messages at b`)
        expect(inB!.map((r) => (r.msg as { seq: number }).seq)).toEqual([...Array(count).keys()])
      }),
    )

    it(
      'delivers every message exactly once when all send to all at once',
      withNet([1, 2, 3], async (h, ts, inbox) => {
        const each = 50
        for (const t of ts)
          for (const peer of [1, 2, 3])
            if (peer !== t.self) for (let i = 0; i < each; i++) t.send(peer, { from: t.self, i })
        const expected = 2 * each
        await h.settle(() => inbox.every((got) => got.length >= expected), 'all-to-all burst')
        for (const [index, got] of inbox.entries()) {
          expect(got).toHaveLength(expected)
          const keys = new Set(got.map((r) => `${String(r.from)}:${(r.msg as { i: number }).i}`))
          expect(keys.size, `distinct messages at node ${index + 1}`).toBe(expected)
          for (const r of got) expect((r.msg as { from: NodeId }).from).toBe(r.from)
        }
      }),
    )

    it(
      'calls every handler, and no longer calls one that unsubscribed',
      withNet(['a', 'b'], async (h, [a, b], [, inB]) => {
        const second: unknown[] = []
        const off = b!.onMessage((_from, msg) => second.push(msg))
        a!.send('b', 1)
        await h.settle(
          () => inB!.length === 1 && second.length === 1,
          'first message at both handlers',
        )
        off()
        a!.send('b', 2)
        await h.settle(() => inB!.length === 2, 'second message')
        expect(second).toEqual([1])
      }),
    )

    it(
      'throws UnknownNodeError when sending to an id it cannot reach',
      withNet(['a', 'b'], async (h, [a]) => {
        const nowhere = h.unreachableId ?? 'no-such-node'
        expect(() => a!.send(nowhere, 'x')).toThrow(UnknownNodeError)
      }),
    )

    it(
      'refuses to send after close, and close is idempotent',
      withNet(['a', 'b'], async (_h, [a]) => {
        await a!.close()
        await a!.close()
        expect(a!.closed).toBe(true)
        expect(() => a!.send('b', 'late')).toThrow(TransportClosedError)
      }),
    )

    it(
      'a closed transport hands nothing more to its handlers',
      withNet(['a', 'b', 'c'], async (h, [a, b], [inA, , inC]) => {
        await a!.close()
        b!.send('a', 'after close')
        b!.send('c', 'marker')
        await h.settle(() => inC!.length === 1, 'marker at c')
        expect(inA).toEqual([])
      }),
    )

    it(
      'carries traffic in both directions at once',
      withNet(['a', 'b'], async (h, [a, b], [inA, inB]) => {
        for (let i = 0; i < 100; i++) {
          a!.send('b', i)
          b!.send('a', 1000 + i)
        }
        await h.settle(() => inA!.length === 100 && inB!.length === 100, 'both directions')
        expect(inB!.map((r) => r.msg)).toEqual([...Array(100).keys()])
        expect(inA!.map((r) => r.msg)).toEqual([...Array(100).keys()].map((i) => 1000 + i))
      }),
    )
  })
}
