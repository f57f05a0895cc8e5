import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isSdError } from '@sd/transport'
import { openFileStorage } from '@sd/transport/storage-file'
import { createUdpTransport, type UdpTransport } from '@sd/transport/udp'
import { afterEach, describe, expect, it } from 'vitest'
import { createMutex } from '../src/api/index.js'
import { centralized } from '../src/centralized/index.js'
import { clusterPerTest, countOf, rejection, rejectionWith } from './support/lock-cluster.js'

// Leases, an unreachable coordinator and durable tokens, through the lock over UDP on loopback.
const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})
// Registered after the cleanups, so its afterEach (closing the cluster) runs before them.
const start = clusterPerTest()

/** Keeps this process (all three nodes) from running anything for `ms`. */
const freeze = (ms: number) => {
  const until = performance.now() + ms
  while (performance.now() < until) {}
}

describe('the lock: faults', () => {
  it('a lease that runs out aborts the handle, and its release is then a no-op', async () => {
    const { locks, events } = await start(
      centralized({ coordinator: 'n1', leaseMs: 60, renewEveryMs: 20 }),
    )
    const [, b, c] = locks as [(typeof locks)[0], (typeof locks)[0], (typeof locks)[0]]
    const h = await b.acquire()
    // Frozen past the lease: the holder's lease timer fires before any renewal can be answered.
    freeze(300)
    const lost = await h.lost
    expect(isSdError(lost, 'ERR_LEASE_LOST')).toBe(true)
    expect(lost.token).toBe(h.token)
    expect(h.held).toBe(false)
    expect(h.signal.aborted).toBe(true)
    expect(h.signal.reason).toBe(lost)
    expect(countOf(events[1]!, 'lease-lost')).toBe(1)
    await h.release()
    expect(countOf(events[1]!, 'released')).toBe(1)
    const next = await c.acquire()
    expect(next.token).toBeGreaterThan(h.token)
    await next.release()
  })

  it('runExclusive rejects with ERR_LEASE_LOST when the lease ran out during the section', async () => {
    const { locks } = await start(centralized({ coordinator: 'n1', leaseMs: 60, renewEveryMs: 20 }))
    const error = await rejection(
      locks[1]!.runExclusive(async (h) => {
        freeze(300)
        await h.lost
        return 'done'
      }),
    )
    expect(isSdError(error, 'ERR_LEASE_LOST')).toBe(true)
    expect(await locks[2]!.runExclusive(() => 'next')).toBe('next')
  })

  it('a coordinator that does not answer rejects waiting acquires with ERR_COORDINATOR_UNREACHABLE', async () => {
    const { locks } = await start(
      centralized({ coordinator: 'n1', whenBusy: 'deny', answerTimeoutMs: 50 }),
    )
    await locks[0]!.close() // n1's protocol stops; its transport stays up and answers nothing
    const error = await rejectionWith(locks[1]!.acquire(), 'ERR_COORDINATOR_UNREACHABLE')
    expect(error).toHaveProperty('coordinator', 'n1')
  })

  it('with file storage, fencing tokens keep growing across a restart of the lock', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sd-lock-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const transport: UdpTransport<unknown> = await createUdpTransport({ id: 'solo' })
    cleanups.push(async () => void (await transport.close()))
    const tokens: number[] = []
    for (let run = 0; run < 3; run++) {
      const lock = createMutex({
        transport,
        algorithm: centralized(),
        members: ['solo'],
        storage: openFileStorage(join(dir, 'solo.json')),
      })
      try {
        await lock.runExclusive((h) => void tokens.push(h.token))
      } finally {
        await lock.close()
      }
    }
    expect(tokens[1]).toBeGreaterThan(tokens[0]!)
    expect(tokens[2]).toBeGreaterThan(tokens[1]!)
  })
})
