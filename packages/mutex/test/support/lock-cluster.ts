/**
 * A few locks of one group in this process, each on its own UDP transport on loopback: what the
 * lock tests run on (the lock needs real timers, so not the simulator).
 */
import type { ProtocolFactory } from '@sd/transport'
import { createUdpTransport, type UdpTransport } from '@sd/transport/udp'
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
export function countOf<Ev>(events: Ev[], type: string): number {
  return events.filter((e) => (e as { type: string }).type === type).length
}
