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
      const count = 1500
      // Sent in bursts, as an application would, so queues fill and drain under loss.
      for (let i = 0; i < count; i++) {
        a.send('b', { i })
        b.send('a', { i })
        if (i % 100 === 99) await new Promise((r) => setTimeout(r, 5))
      }
      try {
        await pollUntil(() => atA.length >= count && atB.length >= count, 'all messages')
      } finally {
        console.log(
          `seed ${seed}: proxy ${JSON.stringify(proxy.counts)}; a retransmissions ${a.stats.retransmissions}, b dropped ${JSON.stringify(nonZero(b.stats.dropped))}`,
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
      const drops = b.stats.dropped
      expect(drops.duplicate + drops.replayed).toBeGreaterThan(0)
      expect(a.stats.peersUnreachable + b.stats.peersUnreachable).toBe(0)
      // Bundled: far fewer data datagrams than messages (each burst of 100 fits a few datagrams).
      if (coalesce) expect(a.stats.datagramsSent - a.stats.retransmissions).toBeLessThan(count / 5)
    })
  }
})

function nonZero(record: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v > 0))
}
