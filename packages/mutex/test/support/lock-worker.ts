/**
 * A child process of the multi-process lock test:
 *   node --import tsx lock-worker.ts '<json config>'
 * config: { id, port, peers: { id: port }, coordinator, counter, iterations, leaseMs?, slowFrom?,
 * algorithm?, waitForWrite? }.
 * Binds a UDP transport on 127.0.0.1:port, runs the centralized lock (or Ricart-Agrawala with
 * `algorithm: 'ricart-agrawala'`: every peer a member, `coordinator` unused), prints `READY`, and on a
 * `go` line on stdin does `iterations` times: acquire, read the counter file, pause, write
 * count + 1 fenced by its token, release. Prints `ENTER <token>` on each entry, `COMMIT <count>`
 * after each write the file took, `REFUSED <token>` for one it refused, then `DONE`; it stays up
 * (others may need its transport, the coordinator its lock) until stdin says `exit` or closes.
 */
import { say, workerConfig } from '../../../../test-support/worker-process.js'
import { createMutex } from '../../src/api/index.js'
import { centralized } from '../../src/centralized/index.js'
import { ricartAgrawala } from '../../src/ricart-agrawala/index.js'
import { readCounter, writeFenced } from './lock-counter.js'
import { serveParent, workerTransport } from './worker-node.js'

interface Config {
  id: string
  port: number
  peers: Record<string, number>
  coordinator: string
  counter: string
  iterations: number
  leaseMs?: number
  /** From this entry on (1-based), each section pauses 20 ms: a target for the parent's SIGKILL. */
  slowFrom?: number
  /** Default `'centralized'`. */
  algorithm?: 'centralized' | 'ricart-agrawala'
  /**
   * A holder that does not check its lease (the fencing test): after reading the counter it waits
   * for a `write` line on stdin, then writes whether it still holds or not, then waits (at most
   * 10 s) for the handle to report a lost lease and prints `LOST <token> aborted=<signal.aborted>`
   * (or `KEPT <token>`).
   */
  waitForWrite?: boolean
}

const config = workerConfig<Config>()
const transport = await workerTransport(config)
const members = Object.keys(config.peers)
const lock =
  config.algorithm === 'ricart-agrawala'
    ? createMutex({ transport, algorithm: ricartAgrawala(), members })
    : createMutex({
        transport,
        algorithm: centralized({
          coordinator: config.coordinator,
          ...(config.leaseMs === undefined ? {} : { leaseMs: config.leaseMs }),
        }),
        members,
      })

let writeLine: () => void = () => {}
const writeOrdered = new Promise<void>((resolve) => {
  writeLine = resolve
})

/** One entry of a holder that writes, when the parent says so, without checking its lease. */
const unchecked = async () => {
  const h = await lock.acquire()
  say(`ENTER ${h.token}`)
  const seen = readCounter(config.counter)
  await writeOrdered
  const by = { ...seen.by, [config.id]: (seen.by[config.id] ?? 0) + 1 }
  const next = { count: seen.count + 1, token: h.token, by }
  if (writeFenced(config.counter, next, config.id)) say(`COMMIT ${next.count}`)
  else say(`REFUSED ${h.token}`)
  const timeout = new Promise<'kept'>((r) => setTimeout(() => r('kept'), 10_000).unref())
  if ((await Promise.race([h.lost, timeout])) === 'kept') say(`KEPT ${h.token}`)
  else say(`LOST ${h.token} aborted=${h.signal.aborted}`)
  await h.release()
  say('DONE')
}

const work = async () => {
  if (config.waitForWrite) return unchecked()
  for (let i = 0; i < config.iterations; i++) {
    const h = await lock.acquire()
    say(`ENTER ${h.token}`)
    const seen = readCounter(config.counter)
    const pause = i + 1 >= (config.slowFrom ?? Number.POSITIVE_INFINITY) ? 20 : Math.random() * 3
    await new Promise((r) => setTimeout(r, pause))
    const by = { ...seen.by, [config.id]: (seen.by[config.id] ?? 0) + 1 }
    const next = { count: seen.count + 1, token: h.token, by }
    if (!h.held) say(`LOST ${h.token}`)
    else if (writeFenced(config.counter, next, config.id)) say(`COMMIT ${next.count}`)
    else say(`REFUSED ${h.token}`)
    await h.release()
  }
  say('DONE')
}

serveParent({
  work,
  close: async () => {
    await lock.close()
    await transport.close({ timeoutMs: 1000 })
  },
  other: (line) => {
    if (line === 'write') writeLine()
  },
})
