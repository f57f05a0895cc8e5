/**
 * The layers under one uncontended use of the centralized lock, each as a loop of `ops`
 * operations in this process over two loopback sockets: node:dgram carrying the lock's three
 * messages as JSON, our UDP transport carrying the same messages, the lock itself on our
 * transport, and the lock in the simulator (its protocol and runtime without sockets).
 */
import { createSocket, type Socket } from 'node:dgram'
import { centralized, centralizedCodec, type MutexRequest } from '@sd/mutex'
import {
  type NodeId,
  type ProtocolFactory,
  type ProtocolHandle,
  runProtocol,
  SimNetwork,
  type Transport,
} from '@sd/transport'
import { createUdpTransport, jsonCodec, type UdpTransport } from '@sd/transport/udp'

export type Loop = (ops: number) => Promise<void>

export interface Layers {
  dgram: Loop
  transport: Loop
  lock: Loop
  /** The lock on our transport, its REQUEST, GRANT and RELEASE in binary (`centralizedCodec`). */
  lockCodec: Loop
  sim: Loop
  /** The same, each message copied through JSON on its way (what a codec's parse makes of it). */
  simJson: Loop
  /** The three messages, as the lock sent them (request, grant, release). */
  messages: unknown[]
  close(): Promise<void>
}

type LockEvent = { type: string }
const members: NodeId[] = ['c', 'n1']
// The transport only sees JSON: the lock's messages are `unknown` to it.
const factory = centralized({ coordinator: 'c' }) as unknown as ProtocolFactory<
  unknown,
  MutexRequest,
  LockEvent
>
const lockOf = (id: NodeId, transport: Transport<unknown>) =>
  runProtocol(factory(id), { transport, members })

async function udpPair(codec = jsonCodec): Promise<[UdpTransport<unknown>, UdpTransport<unknown>]> {
  const bind = { host: '127.0.0.1', port: 0 }
  const c = await createUdpTransport<unknown>({ id: 'c', bind, codec })
  const n = await createUdpTransport<unknown>({ id: 'n1', bind, codec })
  c.setPeer('n1', `127.0.0.1:${n.address.port}`)
  n.setPeer('c', `127.0.0.1:${c.address.port}`)
  return [c, n]
}

/** Acquire, then release, `ops` times, each awaited as a user of the lock awaits it. */
function lockLoop(handle: ProtocolHandle<MutexRequest, LockEvent>): Loop {
  let waiting: { type: string; resolve: () => void } | undefined
  handle.onEvent((event) => {
    if (waiting?.type !== event.type) return
    const { resolve } = waiting
    waiting = undefined
    resolve()
  })
  const ask = (type: string, request: MutexRequest) =>
    new Promise<void>((resolve) => {
      waiting = { type, resolve }
      handle.request(request)
    })
  return async (ops) => {
    for (let i = 0; i < ops; i++) {
      await ask('acquired', { type: 'acquire' })
      await ask('released', { type: 'release' })
    }
  }
}

/** One acquire + release on our transport, its messages read off the codec as they leave. */
async function captureMessages(): Promise<unknown[]> {
  const sent: unknown[] = []
  const encode = (m: unknown) => {
    sent.push(m)
    return jsonCodec.encode(m)
  }
  const codec = { ...jsonCodec, encode }
  const [c, n] = await udpPair(codec)
  const coordinator = lockOf('c', c)
  const client = lockOf('n1', n)
  await lockLoop(client)(1)
  client.stop()
  coordinator.stop()
  await Promise.all([c.close({ graceful: false }), n.close({ graceful: false })])
  if (sent.length !== 3)
    throw new Error(`expected 3 messages per use of the lock, saw ${sent.length}`)
  return sent
}

/** The lock in the simulator, run to quiescence after each request. */
function simLock(copyMessages: 'none' | 'json'): Loop {
  const net = new SimNetwork({ seed: 1, trace: false, copyMessages })
  lockOf('c', net.addNode('c'))
  const client = lockOf('n1', net.addNode('n1'))
  let held = false
  client.onEvent((e) => {
    if (e.type === 'acquired') held = true
  })
  return async (ops) => {
    for (let i = 0; i < ops; i++) {
      client.request({ type: 'acquire' })
      net.run()
      if (!held) throw new Error('the simulated lock was not granted')
      held = false
      client.request({ type: 'release' })
      net.run()
    }
  }
}

const bound = (s: Socket) => new Promise<Socket>((r) => s.bind(0, '127.0.0.1', () => r(s)))

export async function layers(): Promise<Layers> {
  const messages = await captureMessages()
  const [request, grant, release] = messages

  // node:dgram: each side parses what it receives and serializes what it sends.
  const dc = await bound(createSocket('udp4'))
  const dn = await bound(createSocket('udp4'))
  const [cPort, nPort] = [dc.address().port, dn.address().port]
  const text = (m: unknown) => Buffer.from(JSON.stringify(m))
  dc.on('message', (b) => {
    const m = JSON.parse(b.toString('utf8')) as { type: string }
    if (m.type === 'request') dc.send(text(grant), nPort, '127.0.0.1')
  })
  let granted: (() => void) | undefined
  dn.on('message', (b) => {
    JSON.parse(b.toString('utf8'))
    granted?.()
  })
  const dgram: Loop = async (ops) => {
    for (let i = 0; i < ops; i++) {
      const answer = new Promise<void>((r) => {
        granted = r
      })
      dn.send(text(request), cPort, '127.0.0.1')
      await answer
      dn.send(text(release), cPort, '127.0.0.1')
    }
  }

  // Our transport, the same messages, no protocol.
  const [tc, tn] = await udpPair()
  tc.onMessage((from, m) => {
    if ((m as { type: string }).type === 'request') tc.send(from, grant)
  })
  let delivered: (() => void) | undefined
  tn.onMessage(() => delivered?.())
  const transport: Loop = async (ops) => {
    for (let i = 0; i < ops; i++) {
      const answer = new Promise<void>((r) => {
        delivered = r
      })
      tn.send('c', request)
      await answer
      tn.send('c', release)
    }
  }

  // The lock on our transport.
  const [lc, ln] = await udpPair()
  const coordinator = lockOf('c', lc)
  const client = lockOf('n1', ln)
  const lock = lockLoop(client)

  // The same with the lock's codec.
  const [bc, bn] = await udpPair(centralizedCodec<unknown>(jsonCodec))
  const binaryCoordinator = lockOf('c', bc)
  const binaryClient = lockOf('n1', bn)
  const lockCodec = lockLoop(binaryClient)

  const sim = simLock('none')
  const simJson = simLock('json')

  return {
    dgram,
    transport,
    lock,
    lockCodec,
    sim,
    simJson,
    messages,
    async close() {
      for (const handle of [client, coordinator, binaryClient, binaryCoordinator]) handle.stop()
      dc.close()
      dn.close()
      await Promise.all([tc, tn, lc, ln, bc, bn].map((t) => t.close({ graceful: false })))
    },
  }
}
