/**
 * A child process of the acquireAll process test (test/acquire-all-processes.test.ts):
 *   node --import tsx acquire-all-worker.ts '<json config>'
 * config: { id, port, peers: { id: port }, coordinator, leaseMs, iterations, sets: string[][],
 * holdAt?, holdMs? }.
 * Binds UDP on 127.0.0.1:port, runs createMutex over centralized() with a lease, prints `READY`,
 * and on a `go` line does `iterations` times: `acquireAll(sets[i % sets.length])` (in the order
 * written: acquireAll sorts), a short section, then acts (prints `ACT`) only if every handle is
 * still held, release. Lines, times from process.hrtime.bigint() (CLOCK_MONOTONIC):
 *   ENTER <ns> <resource>:<token>,...   ACT <ns> | LOST <ns>   LEAVE <ns>
 * then `DONE`; it stays up until stdin says `exit` or closes.
 */
import { say, workerConfig } from '../../../../test-support/worker-process.js'
import { createMutex } from '../../src/api/index.js'
import { centralized } from '../../src/centralized/index.js'
import { serveParent, sleep, stamp, workerTransport } from './worker-node.js'

interface Config {
  id: string
  port: number
  peers: Record<string, number>
  coordinator: string
  leaseMs: number
  iterations: number
  sets: string[][]
  /** Entry `holdAt` (1-based) lasts `holdMs`: the parent's SIGKILL lands inside it. */
  holdAt?: number
  holdMs?: number
}

const config = workerConfig<Config>()
const transport = await workerTransport(config)
const lock = createMutex({
  transport,
  algorithm: centralized({ coordinator: config.coordinator, leaseMs: config.leaseMs }),
  members: Object.keys(config.peers),
})

const now = stamp

const work = async () => {
  for (let i = 1; i <= config.iterations; i++) {
    const all = await lock.acquireAll(config.sets[(i - 1) % config.sets.length]!)
    const tokens = Object.entries(all.tokens).map(([r, t]) => `${r}:${t}`)
    say(`ENTER ${now()} ${tokens.join(',')}`)
    await sleep(i === config.holdAt ? (config.holdMs ?? 0) : Math.random() * 3)
    say(all.held ? `ACT ${now()}` : `LOST ${now()}`)
    await all.release()
    say(`LEAVE ${now()}`)
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
