import { isSdError, type ProtocolFactory } from '@sd/transport'
import { pollUntil } from '@sd/transport/testing'
import { afterEach, describe, expect, it } from 'vitest'
import type { MutexHandle } from '../src/api/index.js'
import { centralized } from '../src/centralized/index.js'
import { ricartAgrawala } from '../src/ricart-agrawala/index.js'
import { countOf, type LockCluster, startCluster } from './support/lock-cluster.js'

// The lock over real UDP transports on loopback, three nodes in this process.
let cluster: LockCluster<unknown, unknown> | undefined
afterEach(async () => {
  await cluster?.close()
  cluster = undefined
})

const start = async (algorithm: ProtocolFactory<never, unknown, unknown>) => {
  cluster = await startCluster(algorithm as ProtocolFactory<unknown, unknown, unknown>)
  return cluster
}

const rejection = async (p: Promise<unknown>): Promise<unknown> => {
  try {
    await p
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

const algorithms = {
  centralized: () => centralized(),
  ricartAgrawala: () => ricartAgrawala(),
} as unknown as Record<string, () => ProtocolFactory<never, unknown, unknown>>

describe.each(Object.keys(algorithms))('the lock over UDP: %s', (name) => {
  const algorithm = algorithms[name]!

  it('runExclusive sections of three nodes never overlap, and the counter counts every one', async () => {
    const { locks } = await start(algorithm())
    let counter = 0
    let tick = 0 // a monotonic counter instead of clock time
    let inside = 0
    let overlaps = 0
    const sections: Array<{ node: number; enter: number; exit: number; token: number }> = []
    await Promise.all(
      locks.map(async (lock, node) => {
        for (let i = 0; i < 30; i++) {
          await lock.runExclusive(async (h) => {
            const enter = ++tick
            if (++inside > 1) overlaps++
            const read = counter
            await new Promise((r) => setImmediate(r))
            counter = read + 1
            inside--
            sections.push({ node, enter, exit: ++tick, token: h.token })
          })
        }
      }),
    )
    expect(counter).toBe(90)
    expect(overlaps).toBe(0)
    sections.sort((a, b) => a.enter - b.enter)
    for (let i = 1; i < sections.length; i++) {
      expect(sections[i]!.enter).toBeGreaterThan(sections[i - 1]!.exit)
      expect(sections[i]!.token).toBeGreaterThan(sections[i - 1]!.token)
    }
    expect(new Set(sections.map((s) => s.node)).size).toBe(3)
  })

  it('a timed-out acquire rejects with ERR_MUTEX_TIMEOUT, and its late grant is given back', async () => {
    const { locks, events } = await start(algorithm())
    const [a, b, c] = locks as [(typeof locks)[0], (typeof locks)[0], (typeof locks)[0]]
    const held = await a.acquire()
    const error = await rejection(b.acquire({ timeoutMs: 20 }))
    expect(isSdError(error, 'ERR_MUTEX_TIMEOUT')).toBe(true)
    expect((error as { resource: string }).resource).toBe('default')
    await held.release()
    // The grant that answers b's abandoned request still comes, and b gives it back at once.
    await pollUntil(() => countOf(events[1]!, 'released') === 1, 'the late grant released')
    expect(countOf(events[1]!, 'acquired')).toBe(1)
    const next = await c.acquire()
    expect(next.held).toBe(true)
    await next.release()
    const again = await b.acquire()
    expect(again.token).toBeGreaterThan(next.token)
    await again.release()
  })

  it('an aborted acquire rejects with ERR_MUTEX_ABORTED and the reason as cause', async () => {
    const { locks } = await start(algorithm())
    const [a, b] = locks as [(typeof locks)[0], (typeof locks)[0]]
    const held = await a.acquire()
    const controller = new AbortController()
    const waiting = rejection(b.acquire({ signal: controller.signal }))
    const reason = new Error('the user left')
    controller.abort(reason)
    const error = await waiting
    expect(isSdError(error, 'ERR_MUTEX_ABORTED')).toBe(true)
    expect((error as Error).cause).toBe(reason)
    // A signal aborted beforehand rejects at once.
    const early = await rejection(b.acquire({ signal: AbortSignal.abort('no') }))
    expect(isSdError(early, 'ERR_MUTEX_ABORTED')).toBe(true)
    expect((early as Error).cause).toBe('no')
    await held.release()
    const next = await b.acquire()
    await next.release()
  })

  it('release is idempotent: a second call does not release a later entry', async () => {
    const { locks, events } = await start(algorithm())
    const [a, b] = locks as [(typeof locks)[0], (typeof locks)[0]]
    const first = await a.acquire()
    await first.release()
    await first.release()
    expect(first.held).toBe(false)
    const second = await a.acquire()
    await first.release()
    expect(second.held).toBe(true)
    expect(countOf(events[0]!, 'released')).toBe(1)
    await second.release()
    expect(countOf(events[0]!, 'released')).toBe(2)
    const other = await b.acquire()
    expect(other.token).toBeGreaterThan(second.token)
    await other.release()
  })

  it('await using releases at the end of the block', async () => {
    const { locks, events } = await start(algorithm())
    const [a, b] = locks as [(typeof locks)[0], (typeof locks)[0]]
    let kept: MutexHandle | undefined
    {
      await using h = await a.acquire()
      kept = h
      expect(h.held).toBe(true)
      expect(countOf(events[0]!, 'released')).toBe(0)
    }
    expect(kept.held).toBe(false)
    expect(countOf(events[0]!, 'released')).toBe(1)
    const next = await b.acquire()
    await next.release()
  })

  it('acquires of one node are served in the order they were made', async () => {
    const { locks } = await start(algorithm())
    const lock = locks[1]!
    const order: number[] = []
    await Promise.all(
      [0, 1, 2, 3, 4].map(async (i) => {
        const h = await lock.acquire()
        order.push(i)
        await new Promise((r) => setImmediate(r))
        await h.release()
      }),
    )
    expect(order).toEqual([0, 1, 2, 3, 4])
  })

  it('close rejects pending acquires with ERR_MUTEX_CLOSED and gives back what it holds', async () => {
    const { locks } = await start(algorithm())
    const [a, b, c] = locks as [(typeof locks)[0], (typeof locks)[0], (typeof locks)[0]]
    const held = await b.acquire()
    const pending = rejection(c.acquire())
    await c.close()
    expect(isSdError(await pending, 'ERR_MUTEX_CLOSED')).toBe(true)
    expect(isSdError(await rejection(c.acquire()), 'ERR_MUTEX_CLOSED')).toBe(true)
    await b.close()
    expect(held.held).toBe(false)
    if (name === 'centralized') {
      // b gave the resource back when it closed (Ricart-Agrawala waits for every member's OK).
      const next = await a.acquire()
      await next.release()
    }
  })
})
