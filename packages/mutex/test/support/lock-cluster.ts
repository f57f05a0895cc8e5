/**
 * A few locks of one group in this process, each on its own UDP transport on loopback: what the
 * lock tests run on (the lock needs real timers, so not the simulator).
 */
import { isSdError, type ProtocolFactory, type SdError } from '@sd/transport'
import { createUdpTransport, type UdpTransport } from '@sd/transport/udp'
import { afterEach } from 'vitest'
import { createMutex, type Mutex } from '../../src/api/index.js'

export interface LockCluster<Req, Ev> {
  locks: Mutex<Req, Ev>[]
  /** Every event each lock's protocol emitted, by lock index. */
  events: Ev[][]
  /** Closes the locks, then the transports; safe to call twice. */
  close(): Promise<void>
}

export async function startCluster<Msg, Req, Ev>(
  algorithm: ProtocolFactory<Msg, Req, Ev>,
  ids: string[] = ['n1', 'n2', 'n3'],
): Promise<LockCluster<Req, Ev>> {
  const transports: UdpTransport<Msg>[] = []
  const locks: Mutex<Req, Ev>[] = []
  const events: Ev[][] = []
  const close = async () => {
    await Promise.all(locks.map((l) => l.close()))
    await Promise.all(transports.splice(0).map((t) => t.close({ timeoutMs: 500 })))
  }
  try {
    for (const id of ids) transports.push(await createUdpTransport<Msg>({ id }))
    for (const t of transports) {
      for (const p of transports) t.setPeer(p.self, `127.0.0.1:${p.address.port}`)
    }
    for (const transport of transports) {
      const seen: Ev[] = []
      events.push(seen)
      locks.push(createMutex({ transport, algorithm, members: ids, onEvent: (e) => seen.push(e) }))
    }
  } catch (error) {
    await close()
    throw error
  }
  return { locks, events, close }
}

/** How many events of `type` a lock's protocol emitted. */
export function countOf<Ev extends { type: string }>(events: Ev[], type: Ev['type']): number {
  return events.filter((e) => e.type === type).length
}

/**
 * `start(algorithm)` for a test file: each test's cluster is closed after it (registers an
 * `afterEach`, so call it at the top level of the file).
 */
export function clusterPerTest() {
  let cluster: { close(): Promise<void> } | undefined
  afterEach(async () => {
    await cluster?.close()
    cluster = undefined
  })
  return async <Msg, Req, Ev>(algorithm: ProtocolFactory<Msg, Req, Ev>) => {
    const started = await startCluster(algorithm)
    cluster = started
    return started
  }
}

/** What `p` rejected with; fails the test if it fulfils. */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

/** What `p` rejected with, as sd's error of `code`; fails the test on a fulfilment or another error. */
export async function rejectionWith(p: Promise<unknown>, code: string): Promise<SdError> {
  const error = await rejection(p)
  if (!isSdError(error, code)) throw new Error(`expected ${code}, got ${String(error)}`)
  return error
}
