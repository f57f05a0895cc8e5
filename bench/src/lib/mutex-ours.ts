/**
 * Our locks in a worker: a UDP transport (`@sd/transport/udp`, default options: reliable, no key)
 * and the protocol run on it with `runProtocol`, driven by `acquire` / `release` requests.
 * SD_UDP_COALESCE=1 turns on the transport's `coalesce` in every process of ours (clients and
 * coordinator): what a turn sends to one peer leaves as one datagram; SD_UDP_COALESCE=clients in
 * the lock's clients only (a client's RELEASE and next REQUEST leave together; the coordinator's
 * GRANT leaves at once). SD_UDP_ACK_DELAY_MS sets the
 * transport's `maxAckDelayMs` in every process of ours (unset: the transport's default).
 */
import {
  centralized,
  centralizedCodec,
  entryKind,
  type MutexRequest,
  type ReaderPolicy,
  ricartAgrawala,
} from '@sd/mutex'
import { type NodeId, type ProtocolFactory, type ProtocolHandle, runProtocol } from '@sd/transport'
import { createUdpTransport, jsonCodec } from '@sd/transport/udp'
import type { OursOptions } from './locks-protocol.js'
import type { Locker } from './mutex-locker.js'
import { isCentralized, nowMs, type TrialSpec } from './mutex-protocol.js'

type LockEvent = { type: string; mode?: unknown; permits?: unknown }
// The two protocols carry different messages; the transport only sees JSON.
type AnyFactory = ProtocolFactory<unknown, MutexRequest, LockEvent>

const ackDelayMs =
  process.env.SD_UDP_ACK_DELAY_MS === undefined
    ? undefined
    : Number(process.env.SD_UDP_ACK_DELAY_MS)

/** Whether this process's transport coalesces (SD_UDP_COALESCE: unset, `1` or `clients`). */
function coalesces(spec: OursSpec): boolean {
  const which = process.env.SD_UDP_COALESCE
  if (which === 'clients') return spec.id !== spec.coordinator
  return which === '1'
}

/** The node's id and group: the mutex benchmark's spec, or the lock-family benchmarks'. */
type OursSpec = Pick<TrialSpec, 'id' | 'members' | 'contender' | 'coordinator'>

function factoryOf(spec: OursSpec, options: OursOptions = {}): AnyFactory {
  if (isCentralized(spec.contender)) {
    // The lock-family benchmarks' points set the reader policy and the burst; SD_LOCKS_READERS
    // overrides the policy of a point that sets none.
    const readers = options.readers ?? (process.env.SD_LOCKS_READERS as ReaderPolicy | undefined)
    return centralized({
      coordinator: spec.coordinator,
      ...(readers === undefined ? {} : { readers }),
      ...(options.burst === undefined ? {} : { burst: options.burst }),
    }) as unknown as AnyFactory
  }
  return ricartAgrawala() as unknown as AnyFactory
}

/**
 * `acquireRequest` is what every acquire asks for: an exclusive entry by default; the lock-family
 * benchmarks ask for shared entries or permits.
 */
export async function oursLocker(
  spec: OursSpec,
  acquireRequest: MutexRequest = { type: 'acquire' },
  options?: OursOptions,
): Promise<Locker> {
  const transport = await createUdpTransport<unknown>({
    id: spec.id,
    bind: { host: '127.0.0.1', port: 0 },
    coalesce: coalesces(spec),
    ...(options?.codec === 'centralized' ? { codec: centralizedCodec<unknown>(jsonCodec) } : {}),
    ...(ackDelayMs === undefined ? {} : { maxAckDelayMs: ackDelayMs }),
  })
  let handle: ProtocolHandle<MutexRequest, LockEvent> | undefined
  // One request in flight at a time: the loop waits for each answer. A single watchdog timer for
  // the run's deadline, rather than a timer per call, keeps the harness's own cost per cycle low
  // (the Redis loop checks its deadline without timers too).
  let waiting: { event: string; resolve: () => void; reject: (e: Error) => void } | undefined
  let watchdog: NodeJS.Timeout | undefined
  let watchdogAt = Number.NaN
  const granted: Record<string, number> = {}
  const started = () => {
    if (!handle) throw new Error('acquire before connect')
    return handle
  }
  const answer = (event: 'acquired' | 'released', request: MutexRequest, deadline: number) => {
    if (deadline !== watchdogAt) {
      clearTimeout(watchdog)
      watchdogAt = deadline
      watchdog = setTimeout(
        () => {
          waiting?.reject(new Error(`${waiting.event}: no answer by the deadline`))
          waiting = undefined
        },
        Math.max(0, deadline - nowMs()),
      )
    }
    // The event may come synchronously, inside `request`: listen first.
    const done = new Promise<void>((resolve, reject) => {
      waiting = { event, resolve, reject }
    })
    started().request(request)
    return done
  }
  return {
    port: transport.address.port,
    connect(ports) {
      for (const [id, port] of Object.entries(ports)) {
        if (id !== spec.id) transport.setPeer(id, `127.0.0.1:${port}`)
      }
      handle = runProtocol(factoryOf(spec, options)(spec.id), {
        transport,
        members: spec.members as NodeId[],
      })
      handle.onEvent((event) => {
        if (event.type === 'acquired') {
          const { kind } = entryKind(event)
          granted[kind] = (granted[kind] ?? 0) + 1
        }
        if (waiting?.event !== event.type) return
        const { resolve } = waiting
        waiting = undefined
        resolve()
      })
    },
    acquire: (deadline) => answer('acquired', acquireRequest, deadline),
    release: (deadline) => answer('released', { type: 'release' }, deadline),
    granted: () => ({ ...granted }),
    stats() {
      const { datagramsSent, acksSent, retransmissions, datagramsReceived } = transport.stats
      return { datagramsSent, acksSent, retransmissions, datagramsReceived }
    },
    async close() {
      clearTimeout(watchdog)
      handle?.stop()
      await transport.close({ graceful: false })
    },
  }
}
