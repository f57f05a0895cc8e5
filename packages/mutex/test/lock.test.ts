import { isSdError, type ProtocolFactory } from '@sd/transport'
import { pollUntil } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import type { MutexHandle } from '../src/api/index.js'
import { centralized } from '../src/centralized/index.js'
import type { MutexRequest } from '../src/contract.js'
import { ricartAgrawala } from '../src/ricart-agrawala/index.js'
import { clusterPerTest, countOf, rejection, rejectionWith } from './support/lock-cluster.js'

// The lock over real UDP transports on loopback, three nodes in this process.
const start = clusterPerTest()

/** Either algorithm, as the tests see it: the contract's requests, events with a `type`. */
const algorithms: Record<string, () => ProtocolFactory<never, MutexRequest, { type: string }>> = {
  centralized: () => centralized(),
  // Entries made again on a kept grant go through the same API (events, tokens, handles).
  'centralized, burst 4': () => centralized({ burst: 4 }),
  ricartAgrawala: () => ricartAgrawala(),
}

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
    const error = await rejectionWith(b.acquire({ timeoutMs: 20 }), 'ERR_MUTEX_TIMEOUT')
    expect(error).toHaveProperty('resource', 'default')
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
    const waiting = rejectionWith(b.acquire({ signal: controller.signal }), 'ERR_MUTEX_ABORTED')
    const reason = new Error('the user left')
    controller.abort(reason)
    const error = await waiting
    expect(error.cause).toBe(reason)
    // A signal aborted beforehand rejects at once.
    const early = await rejectionWith(
      b.acquire({ signal: AbortSignal.abort('no') }),
      'ERR_MUTEX_ABORTED',
    )
    expect(early.cause).toBe('no')
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
