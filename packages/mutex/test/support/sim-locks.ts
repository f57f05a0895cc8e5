/**
 * Locks (`createMutex`, `createLockManager`) of several nodes on one simulated network, in this
 * process: they run on the simulator's transports, clock and timers, and `drive` alternates the
 * locks' promises (microtasks) with the network's events, so a seed decides the interleaving.
 */
import {
  type NodeId,
  type ProtocolFactory,
  SimNetwork,
  type TimedEvent,
  type TimerScheduler,
} from '@sd/transport'
import {
  createLockManager,
  createMutex,
  type LockManager,
  type Mutex,
} from '../../src/api/index.js'
import type { MutexOptions } from '../../src/api/options.js'
import type { MutexRequest } from '../../src/contract.js'

export type SimLockOptions = Pick<MutexOptions<unknown, unknown, unknown>, 'permits' | 'reentrancy'>

/** A simulated network, and what a lock of one of its nodes runs on. */
export function simCluster<Msg>(ids: readonly NodeId[], seed: number) {
  const net = new SimNetwork({ seed, latency: { kind: 'uniform', min: 1, max: 10 }, trace: false })
  const events: TimedEvent[] = []
  const timers: TimerScheduler = {
    schedule(ms, fire) {
      const timer = { cancelled: false }
      net.at(net.now + ms, () => {
        if (!timer.cancelled) fire()
      })
      return timer
    },
    cancel(timer) {
      ;(timer as { cancelled: boolean }).cancelled = true
    },
  }
  const clock = { now: () => net.now }
  const node = (id: NodeId) => ({
    transport: net.addNode<Msg>(id),
    members: ids,
    clock,
    monotonic: clock, // leases count on the simulator's time, as the handles' checks do
    timers,
    onEvent: (event: unknown) => void events.push({ node: id, t: net.now, event }),
  })
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

  /**
   * Runs the network until `done()` holds or nothing is left to happen (then it returns false):
   * at most `maxSteps` network events, so a deadlock ends the drive instead of hanging it.
   */
  const drive = async (done: () => boolean = () => false, maxSteps = 20_000): Promise<boolean> => {
    for (let i = 0; i < maxSteps; i++) {
      await settle()
      if (done()) return true
      if (!net.step()) {
        await settle()
        if (net.pending === 0) return done()
      }
    }
    return done()
  }
  return { net, events, node, drive }
}

export function simLocks<Msg, Ev>(
  ids: readonly NodeId[],
  algorithm: ProtocolFactory<Msg, MutexRequest, Ev>,
  seed = 1,
  options: SimLockOptions = {},
) {
  const cluster = simCluster<Msg>(ids, seed)
  const locks = ids.map((id) =>
    createMutex({ ...cluster.node(id), algorithm, ...options }),
  ) as Mutex<MutexRequest, unknown>[]
  return { ...cluster, locks }
}

export function simManagers<Msg, Ev>(
  ids: readonly NodeId[],
  algorithm: ProtocolFactory<Msg, MutexRequest, Ev>,
  seed = 1,
) {
  const cluster = simCluster<Msg>(ids, seed)
  const managers: LockManager[] = ids.map((id) =>
    createLockManager({
      ...cluster.node(id),
      algorithm: algorithm as ProtocolFactory<Msg, MutexRequest, unknown>,
    }),
  )
  return { ...cluster, managers }
}

/** A promise's state, readable synchronously. */
export function track<T>(p: Promise<T>) {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false }
  p.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error) => Object.assign(state, { settled: true, error }),
  )
  return state
}
