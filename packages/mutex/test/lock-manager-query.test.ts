import { isSdError } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { LockQueryTimeoutError } from '../src/api/index.js'
import { centralized } from '../src/centralized/index.js'
import { lamportMutex } from '../src/lamport/index.js'
import { simManagers, track } from './support/sim-locks.js'

// createLockManager's query() over centralized() (marked 'query'): the coordinator's view of
// every node's locks, whichever node asks; over other algorithms, the manager's own requests.
const ids = ['n1', 'n2', 'n3', 'n4']

/** A callback that holds its lock until `open()`. */
const gate = () => {
  let open!: () => void
  const closed = new Promise<void>((resolve) => {
    open = resolve
  })
  return { closed, open }
}

/** n2 holds 'inventory' (shared) and 'orders'; n3 waits for 'inventory' (exclusive). */
async function busyCluster(seed = 1) {
  const sim = simManagers(ids, centralized({ coordinator: 'n1' }), seed)
  const { managers, drive, events } = sim
  const g = gate()
  const held = [
    track(managers[1]!.request('inventory', { mode: 'shared' }, () => g.closed)),
    track(managers[1]!.request('orders', () => g.closed)),
  ]
  const granted = () => events.filter((e) => (e.event as { type: string }).type === 'acquired')
  expect(await drive(() => granted().length === 2)).toBe(true)
  const waiting = track(managers[2]!.request('inventory', () => 'n3 done'))
  const queued = () =>
    events.some((e) => {
      const ev = e.event as { type: string; node?: unknown }
      return ev.type === 'requested' && ev.node === 'n3'
    })
  expect(await drive(queued)).toBe(true)
  return { ...sim, open: g.open, held, waiting }
}

describe('LockManager.query() over centralized(): the whole cluster', () => {
  it("a node that neither coordinates nor holds sees another node's held locks and a third's pending one", async () => {
    const { managers, drive, open, waiting } = await busyCluster()
    const q = track(managers[3]!.query())
    expect(await drive(() => q.settled)).toBe(true)
    expect(q.error).toBeUndefined()
    expect(q.value).toEqual({
      held: [
        { name: 'inventory', mode: 'shared', clientId: 'n2' },
        { name: 'orders', mode: 'exclusive', clientId: 'n2' },
      ],
      pending: [{ name: 'inventory', mode: 'exclusive', clientId: 'n3' }],
      cluster: { term: 0, recovering: false, truncated: false },
    })
    open()
    expect(await drive(() => waiting.settled)).toBe(true)
    expect(waiting.value).toBe('n3 done')
    // The coordinator asking itself: answered without a message, n3 now the holder.
    const after = track(managers[0]!.query())
    expect(await drive(() => after.settled)).toBe(true)
    expect(after.value).toMatchObject({
      held: [{ name: 'inventory', mode: 'exclusive', clientId: 'n3' }],
      pending: [],
    })
  })

  it('a lost answer: the query rejects with LockQueryTimeoutError, and the next one is answered', async () => {
    const { managers, drive, net } = await busyCluster()
    net.setLink('n1', 'n4', { loss: 1 }, { oneWay: true }) // the coordinator's answers to n4 are lost
    const lost = track(managers[3]!.query({ timeoutMs: 100 }))
    expect(await drive(() => lost.settled)).toBe(true)
    expect(lost.error).toBeInstanceOf(LockQueryTimeoutError)
    expect(isSdError(lost.error, 'ERR_LOCK_QUERY_TIMEOUT')).toBe(true)
    expect(lost.error).toMatchObject({ timeoutMs: 100 })
    net.setLink('n1', 'n4', { loss: 0 }, { oneWay: true })
    const again = track(managers[3]!.query({ timeoutMs: 100 }))
    expect(await drive(() => again.settled)).toBe(true)
    expect(again.value?.held).toHaveLength(2)
  })

  it('a query waiting when the manager closes rejects at once with LockManagerClosedError', async () => {
    const { managers, drive, net } = await busyCluster()
    net.setLink('n1', 'n4', { loss: 1 }, { oneWay: true })
    const waiting = track(managers[3]!.query({ timeoutMs: 60_000 }))
    await drive(() => false, 50)
    expect(waiting.settled).toBe(false)
    await managers[3]!.close()
    await drive(() => waiting.settled, 1)
    expect(isSdError(waiting.error, 'ERR_LOCK_MANAGER_CLOSED')).toBe(true)
  })

  it('a timeout that is not a positive number is refused', async () => {
    const { managers } = simManagers(ids, centralized({ coordinator: 'n1' }))
    for (const timeoutMs of [0, -1, Number.NaN, 'soon']) {
      await expect(managers[3]!.query({ timeoutMs } as never)).rejects.toMatchObject({
        code: 'ERR_INVALID_ARGUMENT',
      })
    }
  })

  it('after close, the manager answers with its own (empty) view', async () => {
    const { managers } = simManagers(ids, centralized({ coordinator: 'n1' }))
    await managers[3]!.close()
    expect(await managers[3]!.query()).toEqual({ held: [], pending: [] })
  })
})

describe('LockManager.query() over an algorithm without the feature: this manager only', () => {
  it("lists its own held lock, not another node's waiting request", async () => {
    const { managers, drive, events } = simManagers(['n1', 'n2'], lamportMutex())
    const g = gate()
    const held = track(managers[0]!.request('r', () => g.closed))
    const acquired = () => events.some((e) => (e.event as { type: string }).type === 'acquired')
    expect(await drive(acquired)).toBe(true)
    const other = track(managers[1]!.request('r', () => 'n2 done'))
    await drive(() => false, 200)
    expect(await managers[0]!.query()).toEqual({
      held: [{ name: 'r', mode: 'exclusive', clientId: 'n1' }],
      pending: [],
    })
    g.open()
    expect(await drive(() => held.settled && other.settled)).toBe(true)
  })
})
