import { describe, expect, it } from 'vitest'
import { IntervalTimeSource } from '../../src/interval/index.js'
import { createNtpServer, queryNtp, systemClock } from '../../src/udp.js'

describe('IntervalTimeSource fed by the real NTP client (UDP on loopback)', () => {
  it('holds the server’s time (our server, 250 ms ahead) at every read after the sync', async () => {
    const server = await createNtpServer({ host: '127.0.0.1', port: 0, offsetMs: 250 })
    try {
      const wall = systemClock()
      const source = new IntervalTimeSource({
        clocks: { monotonic: () => performance.now(), wall },
      })
      const taken = await source.syncWith((clock) =>
        queryNtp('127.0.0.1', { port: server.port, samples: 4, clock }),
      )
      expect(taken).toBe(true)
      for (let i = 0; i < 20; i++) {
        // The server serves this machine's clock plus 250 ms: read just before and just after the
        // interval, its time at the interval's instant lies between the two readings.
        const serverBefore = wall() + 250
        const interval = source.nowSynchronized()
        const serverAfter = wall() + 250
        expect(interval.earliest).toBeLessThanOrEqual(serverAfter)
        expect(interval.latest).toBeGreaterThanOrEqual(serverBefore)
        // A loopback bound: well under a millisecond or two, not the unsynchronized infinity.
        expect(interval.errorBoundMs).toBeLessThan(20)
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    } finally {
      await server.close()
    }
  })
})
