/** Delayed acknowledgements over real sockets on loopback: what a close must not leave behind. */
import { afterEach, describe, expect, it } from 'vitest'
import { pollUntil } from '../testing/index.js'
import { createUdpTransport, type UdpTransport } from './index.js'

const open: UdpTransport<unknown>[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close({ graceful: false })))
})

async function node(id: string, maxAckDelayMs: number): Promise<UdpTransport<unknown>> {
  // A delay far longer than the test: only the close can make the held ack leave.
  const t = await createUdpTransport({ id, maxAckDelayMs, retransmit: { maxAttempts: 3 } })
  open.push(t)
  return t
}

describe('delayed acknowledgements over UDP', () => {
  it('a graceful close sends the acknowledgements it was holding', async () => {
    const a = await node('a', 1000)
    const b = await node('b', 1000)
    a.setPeer('b', `127.0.0.1:${b.address.port}`)
    b.setPeer('a', `127.0.0.1:${a.address.port}`)
    const got: unknown[] = []
    b.onMessage((_from, msg) => got.push(msg))
    a.send('b', 'first') // the first data of a link is acknowledged at once
    await pollUntil(() => a.linkInfo('b')!.queuedMessages === 0, 'first acknowledged')
    a.send('b', 'second') // in order, nothing to carry it: b holds its acknowledgement
    await pollUntil(() => got.length === 2, 'b got both')
    await b.close()
    await pollUntil(() => a.linkInfo('b')!.queuedMessages === 0, 'second acknowledged by the close')
    expect(a.stats.peersUnreachable).toBe(0)
  })
})
