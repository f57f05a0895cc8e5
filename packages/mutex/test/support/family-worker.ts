/**
 * A child process of the lock-family test (test/lock-family-processes.test.ts):
 *   node --import tsx family-worker.ts '<json config>'
 * config: { id, port, peers: { id: port }, coordinator, leaseMs, iterations, mode? | take?, limit?,
 * holdAt?, holdMs? }.
 * Binds UDP on 127.0.0.1:port, runs createMutex over centralized() with a lease, prints `READY`,
 * and on a `go` line does `iterations` times: acquire (`mode`, or `take` of the resource's `limit`
 * permits), a short section, `assertHeld()`, then acts (prints `ACT`) only if it still holds,
 * release. Lines, times from process.hrtime.bigint() (CLOCK_MONOTONIC: one time base for every
 * process of the machine, so the parent judges them together):
 *   ENTER <ns> <token> <exclusive|shared|permits> <take> <of>   (as the handle says it was granted)
 *   ACT <ns> <token>                     (after assertHeld() passed)
 *   LOST <ns> <token> <code> <reason>    (assertHeld() threw)
 *   LEAVE <ns> <token>                   (release() resolved)
 * then `DONE`; it stays up (the coordinator's lock, the others' peers) until stdin says `exit` or
 * closes.
 */
import { say, workerConfig } from '../../../../test-support/worker-process.js'
import { createMutex } from '../../src/api/index.js'
import { centralized } from '../../src/centralized/index.js'
import { LeaseLostError } from '../../src/errors.js'
import { serveParent, sleep, stamp, workerTransport } from './worker-node.js'

interface Config {
  id: string
  port: number
  peers: Record<string, number>
  coordinator: string
  leaseMs: number
  iterations: number
  /** The read-write lock: a reader (`'shared'`) or a writer (`'exclusive'`). */
  mode?: 'shared' | 'exclusive'
  /** The semaphore: permits taken per entry, of `limit`. */
  take?: number
  limit?: number
  /**
   * The section of entry number `holdAt` (1-based) lasts `holdMs` (the lease is renewed
   * meanwhile): the parent's SIGKILL or SIGSTOP has that long to land inside it.
   */
  holdAt?: number
  holdMs?: number
}

const RESOURCE = 'family'
const config = workerConfig<Config>()
const transport = await workerTransport(config)
const lock = createMutex({
  transport,
  algorithm: centralized({ coordinator: config.coordinator, leaseMs: config.leaseMs }),
  members: Object.keys(config.peers),
  resource: RESOURCE,
  ...(config.limit === undefined ? {} : { permits: { [RESOURCE]: config.limit } }),
})

const now = stamp

const work = async () => {
  for (let i = 1; i <= config.iterations; i++) {
    const h = await lock.acquire(
      config.take === undefined ? { mode: config.mode ?? 'exclusive' } : { permits: config.take },
    )
    const granted = h.permits === undefined ? h.mode : 'permits'
    say(`ENTER ${now()} ${h.token} ${granted} ${h.permits?.take ?? 0} ${h.permits?.of ?? 0}`)
    // Readers and permit holders linger a little longer, so that their sections visibly overlap.
    const writer = h.mode === 'exclusive' && h.permits === undefined
    const section = writer ? Math.random() * 3 : 2 + Math.random() * 6
    await sleep(i === config.holdAt ? (config.holdMs ?? 0) : section)
    try {
      h.assertHeld()
      say(`ACT ${now()} ${h.token}`)
    } catch (error) {
      if (!(error instanceof LeaseLostError)) throw error
      say(`LOST ${now()} ${h.token} ${error.code} ${error.reason ?? '-'}`)
    }
    await h.release()
    say(`LEAVE ${now()} ${h.token}`)
  }
  say('DONE')
}

serveParent({
  work,
  close: async () => {
    await lock.close()
    await transport.close({ timeoutMs: 1000 })
  },
})
