/**
 * Our locks in a worker: a UDP transport (`@sd/transport/udp`, default options: reliable, no key)
 * and the protocol run on it with `runProtocol`, driven by `acquire` / `release` requests.
 */
import { centralized, type MutexRequest, ricartAgrawala } from '@sd/mutex'
import { type NodeId, type ProtocolFactory, type ProtocolHandle, runProtocol } from '@sd/transport'
import { createUdpTransport } from '@sd/transport/udp'
import { byDeadline, type Locker } from './mutex-locker.js'
import type { TrialSpec } from './mutex-protocol.js'

type LockEvent = { type: string }
// The two protocols carry different messages; the transport only sees JSON.
type AnyFactory = ProtocolFactory<unknown, MutexRequest, LockEvent>

function factoryOf(spec: TrialSpec): AnyFactory {
  if (spec.contender === 'centralized') {
    return centralized({ coordinator: spec.coordinator }) as unknown as AnyFactory
  }
  return ricartAgrawala() as unknown as AnyFactory
}

export async function oursLocker(spec: TrialSpec): Promise<Locker> {
  const transport = await createUdpTransport<unknown>({
    id: spec.id,
    bind: { host: '127.0.0.1', port: 0 },
  })
  let handle: ProtocolHandle<MutexRequest, LockEvent> | undefined
  // One request of each kind in flight at a time: the loop waits for each answer.
  let onAcquired: (() => void) | undefined
  let onReleased: (() => void) | undefined
  const started = () => {
    if (!handle) throw new Error('acquire before connect')
    return handle
  }
  return {
    port: transport.address.port,
    connect(ports) {
      for (const [id, port] of Object.entries(ports)) {
        if (id !== spec.id) transport.setPeer(id, `127.0.0.1:${port}`)
      }
      handle = runProtocol(factoryOf(spec)(spec.id), {
        transport,
        members: spec.members as NodeId[],
      })
      handle.onEvent((event) => {
        if (event.type === 'acquired') onAcquired?.()
        else if (event.type === 'released') onReleased?.()
      })
    },
    acquire(deadline) {
      const got = new Promise<void>((resolve) => {
        onAcquired = resolve
      })
      started().request({ type: 'acquire' })
      return byDeadline(got, deadline, 'acquire')
    },
    release(deadline) {
      // `released` may come synchronously, inside `request`: listen first.
      const done = new Promise<void>((resolve) => {
        onReleased = resolve
      })
      started().request({ type: 'release' })
      return byDeadline(done, deadline, 'release')
    },
    stats() {
      const { datagramsSent, acksSent, retransmissions } = transport.stats
      return { datagramsSent, acksSent, retransmissions }
    },
    async close() {
      handle?.stop()
      await transport.close({ graceful: false })
    },
  }
}
