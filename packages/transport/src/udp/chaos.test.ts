import { afterEach, describe, expect, it } from 'vitest'
import { ChaosProxy } from '../../test/udp/support/chaos-proxy.js'
import { pollUntil } from '../testing/index.js'
import { createUdpTransport, type UdpTransport } from './index.js'

const open: Array<{ close(options?: { graceful?: boolean }): Promise<unknown> }> = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((x) => x.close({ graceful: false })))
})

async function pairThroughProxy(seed: number, key?: string, coalesce = false) {
  // Default retransmission settings: recovery must hold up without a lowered ceiling.
  const a = await createUdpTransport<{ i: number }>({ id: 'a', key, coalesce })
  const b = await createUdpTransport<{ i: number }>({ id: 'b', key, coalesce })
  open.push(a, b)
  const proxy = await ChaosProxy.start(
    { host: '127.0.0.1', port: a.address.port },
    { host: '127.0.0.1', port: b.address.port },
    { seed, loss: 0.2, duplicate: 0.1, reorder: 0.1, delayMs: [0, 2], reorderDelayMs: 6 },
  )
  open.push(proxy)
  a.setPeer('b', { host: '127.0.0.1', port: proxy.portForA })
  b.setPeer('a', { host: '127.0.0.1', port: proxy.portForB })
  return { a, b, proxy }
}

function inbox(t: UdpTransport<{ i: number }>): number[] {
  const got: number[] = []
  t.onMessage((_from, msg) => got.push(msg.i))
  return got
}

describe('reliable link through a chaos proxy (20% loss, 10% duplication, 10% reordering)', () => {
  // With coalesce, each burst of 100 sends leaves at the end of its turn, bundled.
  for (const [seed, key, coalesce] of [
    [1, undefined, false],
    [2, undefined, false],
    [3, 'chaos-shared-key-0123456789', false],
    [4, undefined, true],
    [5, 'chaos-shared-key-0123456789', true],
  ] as const) {
    it(`delivers every message exactly once and in order, both ways (seed ${seed}${key ? ', authenticated' : ''}${coalesce ? ', coalesce' : ''})`, async () => {
      const { a, b, proxy } = await pairThroughProxy(seed, key, coalesce)
      const atA = inbox(a)
      const atB = inbox(b)
      // Sent in bursts, as an application would, so queues fill and drain under loss.
      let count = 0
      const burst = async () => {
        for (const end = count + 100; count < end; count++) {
          a.send('b', { i: count })
          b.send('a', { i: count })
        }
        await new Promise((r) => setTimeout(r, 5))
      }
      while (count < 1500) await burst()
      // A run can bundle its messages into few datagrams (with coalesce, and in any run what
      // queued behind the first contact's handshake or the window): once about 50 in all, of
      // which the proxy's 10% duplicated none that carried data to B. So bursts go on, each once
      // the last arrived, until the proxy has duplicated 30 datagrams: enough that some carried
      // data.
      while (proxy.counts.duplicated < 30) {
        if (count >= 10_000)
          throw new Error(
            `the proxy duplicated ${proxy.counts.duplicated} datagrams in ${count} messages`,
          )
        await pollUntil(() => atA.length >= count && atB.length >= count, 'the last burst')
        await burst()
      }
      try {
        await pollUntil(() => atA.length >= count && atB.length >= count, 'all messages')
      } finally {
        console.log(
          `seed ${seed}: proxy ${JSON.stringify(proxy.counts)}; a retransmissions ${a.stats.retransmissions}, a dropped ${JSON.stringify(nonZero(a.stats.dropped))}, b dropped ${JSON.stringify(nonZero(b.stats.dropped))}`,
        )
      }
      await new Promise((r) => setTimeout(r, 50)) // late duplicates must not show up
      const expected = [...Array(count).keys()]
      expect(atB).toEqual(expected)
      expect(atA).toEqual(expected)
      const { lost, forwarded } = proxy.counts
      expect(lost / (lost + forwarded)).toBeGreaterThan(0.1) // the proxy really lost about 20%
      expect(proxy.counts.duplicated).toBeGreaterThan(0)
      expect(proxy.counts.reordered).toBeGreaterThan(0)
      // A duplicated datagram that carried data is discarded at one end or the other (a copy of
      // an acknowledgement alone is no drop, and a copy whose original was lost is a delivery).
      const discarded = (t: UdpTransport<{ i: number }>) =>
        t.stats.dropped.duplicate + t.stats.dropped.replayed
      expect(discarded(a) + discarded(b)).toBeGreaterThan(0)
      expect(a.stats.peersUnreachable + b.stats.peersUnreachable).toBe(0)
      // Bundled: far fewer datagrams than messages (each burst of 100 fits a few datagrams).
      if (coalesce) expect(a.stats.datagramsSent - a.stats.retransmissions).toBeLessThan(count / 5)
    })
  }
})

function nonZero(record: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v > 0))
}
