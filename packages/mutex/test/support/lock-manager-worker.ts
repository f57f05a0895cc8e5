/**
 * A child process of the Web Locks process test (test/lock-manager-processes.test.ts):
 *   node --import tsx lock-manager-worker.ts '<json config>'
 * config: { id, port, peers: { id: port }, coordinator, leaseMs, iterations, mode, holdAt?, holdMs? }.
 * Binds UDP on 127.0.0.1:port, runs createLockManager over centralized() with a lease, prints
 * `READY`, then obeys its parent's lines. Times from process.hrtime.bigint() (CLOCK_MONOTONIC: one
 * time base for every process of the machine).
 *
 * `go`: `iterations` times, `request('family', { mode }, callback)`; the callback prints ENTER,
 * sleeps a short section, then acts (prints `ACT`) only if `lock.signal` is not aborted (the Lock
 * has no `assertHeld()`: its signal is the holder's only check), else prints `LOST`:
 *   ENTER <ns> <token> <mode> 0 0              (the line format of family-lines.ts)
 *   ACT <ns> <token> | LOST <ns> <token> <code> <reason>
 *   REJECTED <ns> <token> <error name> <code>  (the request rejected: the lock was taken from it)
 *   LEAVE <ns> <token>                         (the request settled and the callback returned)
 * then `DONE`.
 * `hold <name>` / `steal <name>`: requests `name` (with `steal: true`) and, while its signal is not
 * aborted and no `release` line came, prints `ACT <ns> <token>` every few ms (at most 20 s):
 *   ENTER <ns> <token> exclusive 0 0, ACT..., ABORTED <ns> <token> <reason> (the signal's event),
 *   STOPPED <ns> <token> (the callback stopped acting), REJECTED... , LEAVE <ns> <token>.
 * `release`: ends a `hold` or `steal`. `query`: a cluster-wide query(), printed as
 * `QUERY <json of held>` (asked again after a timeout, three times at most).
 * It stays up until stdin says `exit` or closes.
 */
import { say, workerConfig } from '../../../../test-support/worker-process.js'
import { createLockManager, type Lock, LockQueryTimeoutError } from '../../src/api/index.js'
import { centralized } from '../../src/centralized/index.js'
import { LeaseLostError } from '../../src/errors.js'
import { failWorker, serveParent, sleep, stamp, workerTransport } from './worker-node.js'

interface Config {
  id: string
  port: number
  peers: Record<string, number>
  coordinator: string
  leaseMs: number
  iterations: number
  mode: 'shared' | 'exclusive'
  /** Entry `holdAt` (1-based) lasts `holdMs`: the parent's SIGKILL or SIGSTOP lands inside it. */
  holdAt?: number
  holdMs?: number
}

const config = workerConfig<Config>()
const transport = await workerTransport(config)
const manager = createLockManager({
  transport,
  algorithm: centralized({ coordinator: config.coordinator, leaseMs: config.leaseMs }),
  members: Object.keys(config.peers),
})

const now = stamp
const lostLine = (lock: Lock) => {
  const why = lock.signal.reason
  const [code, reason] = why instanceof LeaseLostError ? [why.code, why.reason] : ['-', '-']
  return `LOST ${now()} ${lock.token} ${code} ${reason ?? '-'}`
}

/**
 * Runs one request; its callback is `body`. Waits for both the request to settle and the callback
 * to return (a holder whose lock was taken sees its request reject while its callback runs on).
 */
async function entry(
  name: string,
  options: { mode?: 'shared' | 'exclusive'; steal?: boolean },
  body: (lock: Lock) => Promise<void>,
) {
  let token = 0
  let returned: Promise<void> = Promise.resolve()
  const outcome = await manager
    .request(name, options, (lock) => {
      token = lock!.token
      returned = body(lock!)
      return returned
    })
    .then(
      () => undefined,
      (error: unknown) => error,
    )
  if (outcome !== undefined) {
    const e = outcome as { name?: string; code?: string }
    if (e.name !== 'AbortError') throw outcome
    say(`REJECTED ${now()} ${token} ${e.name} ${e.code}`)
  }
  await returned
  say(`LEAVE ${now()} ${token}`)
}

const loop = async () => {
  for (let i = 1; i <= config.iterations; i++) {
    await entry('family', { mode: config.mode }, async (lock) => {
      say(`ENTER ${now()} ${lock.token} ${lock.mode} 0 0`)
      const section = lock.mode === 'exclusive' ? Math.random() * 3 : 2 + Math.random() * 6
      await sleep(i === config.holdAt ? (config.holdMs ?? 0) : section)
      say(lock.signal.aborted ? lostLine(lock) : `ACT ${now()} ${lock.token}`)
    })
  }
  say('DONE')
}

let release: () => void = () => {}
const hold = (name: string, steal: boolean) =>
  entry(name, steal ? { steal } : {}, async (lock) => {
    say(`ENTER ${now()} ${lock.token} exclusive 0 0`)
    lock.signal.addEventListener('abort', () => {
      const why = lock.signal.reason as LeaseLostError
      say(`ABORTED ${now()} ${lock.token} ${why.reason ?? '-'}`)
    })
    let released = false
    release = () => {
      released = true
    }
    for (let i = 0; i < 4000 && !released && !lock.signal.aborted; i++) {
      say(`ACT ${now()} ${lock.token}`)
      await sleep(5)
    }
    say(`STOPPED ${now()} ${lock.token}`)
  })

const query = async () => {
  for (let attempt = 1; ; attempt++) {
    try {
      say(`QUERY ${JSON.stringify((await manager.query()).held)}`)
      return
    } catch (error) {
      if (!(error instanceof LockQueryTimeoutError) || attempt === 3) throw error
    }
  }
}

const fail = failWorker
serveParent({
  work: loop,
  close: async () => {
    await manager.close()
    await transport.close({ timeoutMs: 1000 })
  },
  other: (line) => {
    const [word, name] = line.split(' ')
    if (word === 'hold' || word === 'steal') hold(name!, word === 'steal').catch(fail)
    else if (word === 'release') release()
    else if (word === 'query') query().catch(fail)
  },
})
