// Bonus: on a lossless loopback link the timer resent the whole window whenever acknowledgements ran
// late (0 to ~600 retransmissions for 2,000 messages). After the fix a timeout sends one probe only.
import { describe, expect, it } from 'vitest'
import { closeEverythingAfterEach, inbox, pair, pollUntil } from './support.js'

closeEverythingAfterEach()

const MESSAGES = 2000
const KB = 'x'.repeat(1000) // one datagram each (the default datagram holds about 1,150 payload bytes)

describe('bonus: retransmissions on a lossless link', () => {
  it(`${MESSAGES} one-way 1 KB messages cost at most 20 retransmissions`, async () => {
    const { a, b } = await pair<{ i: number; pad: string }>()
    const atB = inbox(b)
    for (let i = 0; i < MESSAGES; i++) a.send('b', { i, pad: KB })
    await pollUntil(() => atB.length === MESSAGES, `${MESSAGES} messages at b`, 120_000)
    expect(atB.map((m) => m.i)).toEqual([...Array(MESSAGES).keys()])
    // 256 datagrams in flight fit b's 1 MiB socket buffer: loopback loses none of them.
    expect(a.stats.retransmissions, 'stats.retransmissions at a').toBeLessThanOrEqual(20)
  }, 180_000)
})
