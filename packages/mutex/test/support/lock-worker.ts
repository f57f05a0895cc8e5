/**
 * A child process of the multi-process lock test:
 *   node --import tsx lock-worker.ts '<json config>'
 * config: { id, port, peers: { id: port }, coordinator, counter, iterations, leaseMs?, slowFrom? }.
 * Binds a UDP transport on 127.0.0.1:port, runs the centralized lock, prints `READY`, and on a
 * `go` line on stdin does `iterations` times: acquire, read the counter file, pause, write
 * count + 1 fenced by its token, release. Prints `ENTER <token>` on each entry, `COMMIT <count>`
 * after each write the file took, `REFUSED <token>` for one it refused, then `DONE`; it stays up
 * (others may need its transport, the coordinator its lock) until stdin says `exit` or closes.
 */
import { createInterface } from 'node:readline'
import { createUdpTransport } from '@sd/transport/udp'
import { centralized } from '../../src/centralized/index.js'
import { createMutex } from '../../src/lock/index.js'
import { readCounter, writeFenced } from './lock-counter.js'

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
}

const config = JSON.parse(process.argv[2] ?? '') as Config
const say = (line: string) => process.stdout.write(`${line}\n`)
const transport = await createUdpTransport({
  id: config.id,
  bind: { host: '127.0.0.1', port: config.port },
  peers: Object.fromEntries(Object.entries(config.peers).map(([id, p]) => [id, `127.0.0.1:${p}`])),
})
const lock = createMutex({
  transport,
  algorithm: centralized({
    coordinator: config.coordinator,
    ...(config.leaseMs === undefined ? {} : { leaseMs: config.leaseMs }),
  }),
  members: Object.keys(config.peers),
})

const work = async () => {
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

const shutdown = async () => {
  await lock.close()
  await transport.close({ timeoutMs: 1000 })
  process.exit(0)
}
const input = createInterface({ input: process.stdin })
input.on('line', (line) => {
  if (line === 'go') {
    work().catch((error: unknown) => {
      say(`ERROR ${String(error)}`)
      process.exit(1)
    })
  } else if (line === 'exit') void shutdown()
})
input.on('close', () => void shutdown())
say('READY')
