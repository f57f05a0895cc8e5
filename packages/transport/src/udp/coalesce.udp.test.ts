/**
 * `coalesce` over real sockets on loopback: what one turn of the event loop sends to a peer
 * (synchronously and in the turn's microtasks) leaves as one datagram. Counted from the stats,
 * never timed; the counts fail when coalescing is switched off.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { pollUntil } from '../testing/index.js'
import { BackpressureError, createUdpTransport, type UdpTransport } from './index.js'

const open: UdpTransport<string>[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close({ graceful: false })))
})

async function pair(coalesce: boolean) {
  const a = await createUdpTransport<string>({ id: 'a', coalesce })
  const b = await createUdpTransport<string>({ id: 'b', coalesce })
  open.push(a, b)
  a.setPeer('b', `127.0.0.1:${b.address.port}`)
  b.setPeer('a', `127.0.0.1:${a.address.port}`)
  const atB: string[] = []
  const atA: string[] = []
  b.onMessage((_from, msg) => atB.push(msg))
  a.onMessage((_from, msg) => atA.push(msg))
  a.send('b', 'warm-up') // the handshake, out of the way
  await pollUntil(() => atB.length === 1 && a.linkInfo('b')!.queuedMessages === 0, 'warm-up')
  return { a, b, atA, atB }
}

/** Datagrams sent, acknowledgements and retransmissions left out (compared after the handshake). */
function dataSent(t: UdpTransport<string>): number {
  const s = t.stats
  return s.datagramsSent - s.acksSent - s.retransmissions
}

describe('coalesce over UDP', () => {
  for (const [coalesce, datagrams] of [
    [true, 1],
    [false, 10],
  ] as const) {
    it(`10 messages sent in one turn, half in a microtask: ${datagrams} datagram(s) with coalesce ${coalesce}, in order`, async () => {
      const { a, atB } = await pair(coalesce)
      const before = a.stats
      const sentBefore = before.datagramsSent - before.retransmissions
      for (let i = 0; i < 5; i++) a.send('b', `m${i}`)
      await Promise.resolve() // an application's continuation: still the same turn
      for (let i = 5; i < 10; i++) a.send('b', `m${i}`)
      await pollUntil(() => atB.length === 11, 'all delivered')
      expect(atB).toEqual(['warm-up', ...Array.from({ length: 10 }, (_, i) => `m${i}`)])
      const after = a.stats
      expect(after.datagramsSent - after.retransmissions - sentBefore).toBe(datagrams)
    })
  }

  for (const [coalesce, perRequest] of [
    [true, 1],
    [false, 2],
  ] as const) {
    it(`a handler answering two messages: ${perRequest} datagram(s) per request with coalesce ${coalesce}`, async () => {
      const { a, b, atA } = await pair(coalesce)
      b.onMessage((_from, msg) => {
        if (!msg.startsWith('req')) return
        b.send('a', `${msg}:first`)
        queueMicrotask(() => b.send('a', `${msg}:second`))
      })
      const n = 20
      const before = dataSent(b)
      for (let i = 0; i < n; i++) {
        a.send('b', `req${i}`)
        await pollUntil(() => atA.length === 2 * (i + 1), `answer ${i}`)
      }
      expect(atA).toEqual(
        Array.from({ length: n }, (_, i) => [`req${i}:first`, `req${i}:second`]).flat(),
      )
      expect(dataSent(b) - before).toBe(perRequest * n)
    })
  }

  it('send still throws BackpressureError at once, and nothing of the refused message leaves', async () => {
    const a = await createUdpTransport<string>({
      id: 'a',
      coalesce: true,
      sendQueue: { maxMessages: 5 },
    })
    const b = await createUdpTransport<string>({ id: 'b', coalesce: true })
    open.push(a, b)
    a.setPeer('b', `127.0.0.1:${b.address.port}`)
    b.setPeer('a', `127.0.0.1:${a.address.port}`)
    const atB: string[] = []
    b.onMessage((_from, msg) => atB.push(msg))
    for (let i = 0; i < 5; i++) a.send('b', `m${i}`)
    expect(() => a.send('b', 'm5')).toThrow(BackpressureError)
    await pollUntil(() => a.linkInfo('b')!.queuedMessages === 0, 'acknowledged')
    a.send('b', 'after')
    await pollUntil(() => atB.length === 6, 'all delivered')
    expect(atB).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'after'])
  })

  it('a graceful close right after sending, in the same turn, delivers what was sent', async () => {
    const { a, atB } = await pair(true)
    a.send('b', 'last-1')
    a.send('b', 'last-2')
    const report = await a.close()
    expect(report.abandonedMessages).toBe(0)
    await pollUntil(() => atB.length === 3, 'delivered')
    expect(atB).toEqual(['warm-up', 'last-1', 'last-2'])
  })
})
