import { isSdError } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import type { Lock } from '../src/api/index.js'
import { centralized } from '../src/centralized/index.js'
import { checkMutualExclusion } from '../src/check.js'
import { lamportMutex } from '../src/lamport/index.js'
import { featureCoordinator } from './support/feature-coordinator.js'
import { simManagers, track } from './support/sim-locks.js'

// createLockManager, rule by rule of the Web Locks API (request's checks, the lock's lifetime,
// ifAvailable, steal, abort, query), over a simulated network and the test coordinator.
const ids = ['n1', 'n2', 'n3']
const start = () => simManagers(ids, featureCoordinator('n1'))
/** A callback that must not run. */
const never = () => {
  throw new Error('the callback ran')
}
/** A promise and the function that settles it: a callback that holds its lock until told. */
const gate = () => {
  let open!: (value: string) => void
  const closed = new Promise<string>((resolve) => {
    open = resolve
  })
  return { closed, open }
}

describe('createLockManager: request checks (in the order the Web Locks API makes them)', () => {
  it("a name starting with '-' is reserved: NotSupportedError", async () => {
    const { managers } = start()
    const error = await managers[0]!.request('-private', never).catch((e) => e)
    expect(error.name).toBe('NotSupportedError')
    expect(isSdError(error, 'ERR_LOCK_NOT_SUPPORTED')).toBe(true)
  })

  it('steal and ifAvailable together: NotSupportedError', async () => {
    const { managers } = start()
    const error = await managers[0]!
      .request('r', { steal: true, ifAvailable: true }, never)
      .catch((e) => e)
    expect(error.name).toBe('NotSupportedError')
  })

  it("steal with mode 'shared': NotSupportedError", async () => {
    const { managers } = start()
    const error = await managers[0]!
      .request('r', { steal: true, mode: 'shared' }, never)
      .catch((e) => e)
    expect(error.name).toBe('NotSupportedError')
  })

  it('a signal with steal, or with ifAvailable: NotSupportedError', async () => {
    const { managers } = start()
    const signal = new AbortController().signal
    for (const extra of [{ steal: true }, { ifAvailable: true }]) {
      const error = await managers[0]!.request('r', { signal, ...extra }, never).catch((e) => e)
      expect(error.name).toBe('NotSupportedError')
    }
  })

  it('the reserved name is checked before the options', async () => {
    const { managers } = start()
    const error = await managers[0]!
      .request('-x', { steal: true, mode: 'shared' }, never)
      .catch((e) => e)
    expect(error.message).toMatch(/reserved/)
  })

  it("an already aborted signal rejects with the signal's reason; the callback never runs", async () => {
    const { managers } = start()
    const reason = new Error('gone')
    const error = await managers[0]!
      .request('r', { signal: AbortSignal.abort(reason) }, never)
      .catch((e) => e)
    expect(error).toBe(reason)
  })

  it('a callback that is not a function: TypeError', async () => {
    const { managers } = start()
    const error = await managers[0]!.request('r', {}, undefined as never).catch((e) => e)
    expect(error).toBeInstanceOf(TypeError)
  })
})

describe('createLockManager: the lock', () => {
  it("is held while the callback's promise is pending; request settles with its result", async () => {
    const { managers, drive, events } = start()
    const first = gate()
    const seen: Array<Lock | null> = []
    const a = track(
      managers[0]!.request('r', (lock) => {
        seen.push(lock)
        return first.closed
      }),
    )
    const b = track(managers[1]!.request('r', () => 'second'))
    await drive(() => seen.length === 1)
    expect(seen[0]).toMatchObject({ name: 'r', mode: 'exclusive' })
    expect(typeof seen[0]!.token).toBe('number')
    await drive()
    expect(b.settled).toBe(false)
    first.open('first')
    expect(await drive(() => a.settled && b.settled)).toBe(true)
    expect(a.value).toBe('first')
    expect(b.value).toBe('second')
    expect(checkMutualExclusion(events).violations).toEqual([])
  })

  it('the two-argument form takes the exclusive default', async () => {
    const { managers, drive } = start()
    const a = track(managers[0]!.request('r', (lock) => lock?.mode))
    expect(await drive(() => a.settled)).toBe(true)
    expect(a.value).toBe('exclusive')
  })

  it('a callback that throws rejects the request with its error, and releases the lock', async () => {
    const { managers, drive } = start()
    const oops = new Error('oops')
    const a = track(
      managers[0]!.request('r', () => {
        throw oops
      }),
    )
    const b = track(managers[1]!.request('r', () => 'after'))
    expect(await drive(() => a.settled && b.settled)).toBe(true)
    expect(a.error).toBe(oops)
    expect(b.value).toBe('after')
  })

  it('shared requests of two nodes hold together', async () => {
    const { managers, drive, events } = start()
    const both = gate()
    let inside = 0
    const shared = (i: number) =>
      track(
        managers[i]!.request('r', { mode: 'shared' }, async () => {
          inside++
          return both.closed
        }),
      )
    const a = shared(0)
    const b = shared(1)
    expect(await drive(() => inside === 2)).toBe(true)
    both.open('done')
    expect(await drive(() => a.settled && b.settled)).toBe(true)
    expect(checkMutualExclusion(events).violations).toEqual([])
  })

  it('ifAvailable when another holds it: the callback gets null, and request resolves with its result', async () => {
    const { managers, drive } = start()
    const held = gate()
    let entered = false
    void managers[0]!.request('r', () => {
      entered = true
      return held.closed
    })
    await drive(() => entered)
    const b = track(managers[1]!.request('r', { ifAvailable: true }, (lock) => lock ?? 'no lock'))
    expect(await drive(() => b.settled)).toBe(true)
    expect(b.value).toBe('no lock')
    held.open('x')
  })

  it('ifAvailable when it is free: the callback gets the lock', async () => {
    const { managers, drive } = start()
    const b = track(managers[1]!.request('r', { ifAvailable: true }, (lock) => lock?.name))
    expect(await drive(() => b.settled)).toBe(true)
    expect(b.value).toBe('r')
  })

  it("steal: the holder's request rejects with AbortError and its lock's signal aborts; the stealer gets the lock", async () => {
    const { managers, drive, events } = start()
    const held = gate()
    let holderLock: Lock | null = null
    const a = track(
      managers[0]!.request('r', (lock) => {
        holderLock = lock
        return held.closed
      }),
    )
    await drive(() => holderLock !== null)
    const b = track(managers[1]!.request('r', { steal: true }, (lock) => lock?.token))
    expect(await drive(() => a.settled && b.settled)).toBe(true)
    expect((a.error as Error).name).toBe('AbortError')
    expect(isSdError(a.error, 'ERR_LOCK_ABORTED')).toBe(true)
    expect(holderLock!.signal.aborted).toBe(true)
    expect(b.value).toBeGreaterThan(holderLock!.token)
    held.open('late') // the holder's callback ending later changes nothing
    await drive()
    expect(checkMutualExclusion(events).violations).toEqual([])
  })

  it("aborting a pending request rejects it with the signal's reason and takes it out of the queue", async () => {
    const { managers, drive } = start()
    const held = gate()
    let entered = false
    void managers[0]!.request('r', () => {
      entered = true
      return held.closed
    })
    await drive(() => entered)
    const controller = new AbortController()
    const b = track(managers[1]!.request('r', { signal: controller.signal }, never))
    await drive()
    expect((await managers[1]!.query()).pending).toEqual([
      { name: 'r', mode: 'exclusive', clientId: 'n2' },
    ])
    const reason = new Error('user left')
    controller.abort(reason)
    await drive(() => b.settled)
    expect(b.error).toBe(reason)
    expect((await managers[1]!.query()).pending).toEqual([])
    held.open('x')
    const c = track(managers[1]!.request('r', () => 'next'))
    expect(await drive(() => c.settled)).toBe(true)
    expect(c.value).toBe('next')
  })

  it("query lists this manager's held and pending requests, with its clientId", async () => {
    const { managers, drive } = start()
    const held = gate()
    let entered = false
    void managers[0]!.request('r', { mode: 'shared' }, () => {
      entered = true
      return held.closed
    })
    await drive(() => entered)
    void managers[0]!.request('q', () => held.closed)
    void managers[0]!.request('r', () => 'x')
    await drive()
    const snapshot = await managers[0]!.query()
    expect(snapshot.held).toEqual([
      { name: 'r', mode: 'shared', clientId: 'n1' },
      { name: 'q', mode: 'exclusive', clientId: 'n1' },
    ])
    expect(snapshot.pending).toEqual([{ name: 'r', mode: 'exclusive', clientId: 'n1' }])
    expect(await managers[1]!.query()).toEqual({ held: [], pending: [] })
    held.open('x')
  })

  it('over lamportMutex() (no features): exclusive requests work; ifAvailable rejects with UnsupportedLockFeatureError', async () => {
    const { managers, drive } = simManagers(ids, lamportMutex())
    const a = track(managers[0]!.request('r', () => 'ok'))
    expect(await drive(() => a.settled)).toBe(true)
    expect(a.value).toBe('ok')
    const b = await managers[0]!.request('r', { ifAvailable: true }, never).catch((e) => e)
    expect(isSdError(b, 'ERR_UNSUPPORTED_LOCK_FEATURE')).toBe(true)
  })

  it('over centralized(): shared requests of two nodes hold together, ifAvailable answers null while held', async () => {
    const { managers, drive } = simManagers(ids, centralized({ coordinator: ids[0] }))
    let release!: () => void
    const gate = new Promise<void>((r) => {
      release = r
    })
    const modes: string[] = []
    const readers = [0, 1].map((i) =>
      track(
        managers[i]!.request('r', { mode: 'shared' }, async (lock) => {
          modes.push(lock!.mode)
          await gate
        }),
      ),
    )
    expect(await drive(() => modes.length === 2)).toBe(true)
    expect(modes).toEqual(['shared', 'shared'])
    const tried = track(managers[2]!.request('r', { ifAvailable: true }, (lock) => lock))
    expect(await drive(() => tried.settled)).toBe(true)
    expect(tried.value).toBeNull()
    release()
    expect(await drive(() => readers.every((r) => r.settled))).toBe(true)
  })
})
