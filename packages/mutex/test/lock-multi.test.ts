import { isSdError } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import type { MutexAlgorithm } from '../src/api/index.js'
import { centralized } from '../src/centralized/index.js'
import { checkMutualExclusion } from '../src/check.js'
import { featureCoordinator } from './support/feature-coordinator.js'
import { simLocks, track } from './support/sim-locks.js'

// acquireAll: several resources in one global order, released together.
const ids = ['n1', 'n2', 'n3']
const algorithms: Record<string, () => MutexAlgorithm> = {
  'feature coordinator': () => featureCoordinator('n3') as unknown as MutexAlgorithm,
  centralized: () => centralized(),
}

describe.each(Object.keys(algorithms))('acquireAll over %s', (name) => {
  it('two clients taking {a,b} and {b,a} at once never deadlock, over seeds', async () => {
    for (let seed = 1; seed <= 30; seed++) {
      const { locks, drive, events, net } = simLocks(ids, algorithms[name]!(), seed)
      let done = 0
      const client = async (lock: (typeof locks)[0], resources: string[]) => {
        for (let round = 0; round < 4; round++) {
          const all = await lock.acquireAll(resources)
          expect(Object.keys(all.tokens).sort()).toEqual(['a', 'b'])
          await new Promise((resolve) => net.at(net.now + 2, () => resolve(0)))
          await all.release()
          expect(all.held).toBe(false)
        }
        done++
      }
      const clients = [client(locks[0]!, ['a', 'b']), client(locks[1]!, ['b', 'a'])]
      expect(await drive(() => done === 2), `seed ${seed}`).toBe(true)
      await Promise.all(clients)
      const verdict = checkMutualExclusion(events)
      expect(verdict.violations).toEqual([])
      expect(verdict.entries).toBe(16)
    }
  })
})

describe('acquireAll', () => {
  it('the control: taking them in the order given deadlocks on some seed (the test above can fail)', async () => {
    let deadlocks = 0
    for (let seed = 1; seed <= 30; seed++) {
      const { locks, drive, net } = simLocks(ids, featureCoordinator('n3'), seed)
      let done = 0
      const client = async (lock: (typeof locks)[0], resources: string[]) => {
        for (let round = 0; round < 4; round++) {
          const handles = []
          for (const resource of resources) handles.push(await lock.acquire({ resource }))
          await new Promise((resolve) => net.at(net.now + 2, () => resolve(0)))
          for (const h of handles) await h.release()
        }
        done++
      }
      void client(locks[0]!, ['a', 'b'])
      void client(locks[1]!, ['b', 'a'])
      if (!(await drive(() => done === 2))) deadlocks++
    }
    expect(deadlocks).toBeGreaterThan(0)
  })

  it('an abort while it waits for the second resource releases the first', async () => {
    const { locks, drive } = simLocks(ids, featureCoordinator('n1'))
    const b = track(locks[1]!.acquire({ resource: 'b' }))
    await drive(() => b.settled)
    const controller = new AbortController()
    const all = track(locks[0]!.acquireAll(['b', 'a'], { signal: controller.signal }))
    const other = track(locks[2]!.acquire({ resource: 'a' }))
    await drive()
    expect(all.settled).toBe(false)
    expect(other.settled).toBe(false) // n1 holds a, and waits for b
    controller.abort('enough')
    expect(await drive(() => all.settled && other.settled)).toBe(true)
    expect(isSdError(all.error, 'ERR_MUTEX_ABORTED')).toBe(true)
    expect(other.value!.held).toBe(true)
  })
})
