/**
 * Over loopback: a seed that knows nobody admits joiners (the `admit` option) and answers them;
 * a node without the key cannot join; and the runtime drops a protocol's send to an id the
 * address book lacks (an `unknown-peer` signal) instead of throwing.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { NodeId } from '../ids.js'
import type { Protocol } from '../protocol.js'
import { type ProtocolHandle, runProtocol } from '../runtime/index.js'
import { pollUntil } from '../testing/index.js'
import type { TransportSignal } from '../transport.js'
import { admitFromSource } from './admission.js'
import { createUdpTransport, type UdpTransport, type UdpTransportOptions } from './index.js'

const KEY = 'admission-test-key-0123456789'
const open: UdpTransport<unknown>[] = []
const handles: ProtocolHandle<never, unknown>[] = []
afterEach(async () => {
  for (const h of handles.splice(0)) h.stop()
  await Promise.all(open.splice(0).map((t) => t.close({ graceful: false })))
})

async function node(options: UdpTransportOptions<unknown>): Promise<UdpTransport<unknown>> {
  const t = await createUdpTransport<unknown>(options)
  open.push(t)
  return t
}

function record(t: UdpTransport<unknown>) {
  const messages: Array<{ from: NodeId; msg: unknown }> = []
  const signals: TransportSignal[] = []
  t.onMessage((from, msg) => void messages.push({ from, msg }))
  t.onSignal((s) => void signals.push(s))
  return { messages, signals }
}

describe('admission over UDP', () => {
  it('a seed learns a joiner at its source address and can answer it; a keyless stranger cannot join', async () => {
    const seed = await node({ id: 'seed', key: KEY, admit: (id) => id !== 'banned' })
    const at = `127.0.0.1:${seed.address.port}`
    const joiner = await node({ id: 'joiner', key: KEY, peers: { seed: at } })
    const stranger = await node({
      id: 'stranger',
      peers: { seed: at },
      retransmit: { maxAttempts: 2 },
    })
    const banned = await node({ id: 'banned', key: KEY, peers: { seed: at } })
    const atSeed = record(seed)
    const atJoiner = record(joiner)
    joiner.send('seed', 'hello')
    stranger.send('seed', 'let me in')
    banned.send('seed', 'me too')
    await pollUntil(() => atSeed.messages.length >= 1, 'the joiner to reach the seed', 10_000)
    expect(atSeed.messages[0]).toEqual({ from: 'joiner', msg: 'hello' })
    expect(atSeed.signals).toEqual([
      { type: 'peer-learned', peer: 'joiner', address: `127.0.0.1:${joiner.address.port}` },
    ])
    seed.send('joiner', 'welcome') // reachable now: it is in the address book
    await pollUntil(() => atJoiner.messages.length >= 1, 'the answer', 10_000)
    expect(atJoiner.messages).toEqual([{ from: 'seed', msg: 'welcome' }])
    await pollUntil(
      () => seed.stats.dropped.unauthenticated > 0,
      'the stranger to be refused',
      10_000,
    )
    await pollUntil(() => seed.stats.admissionsRefused > 0, 'the banned id to be refused', 10_000)
    expect(seed.peers).toEqual(['joiner'])
    expect(atSeed.messages).toHaveLength(1)
  })
})

describe('admitFromSource', () => {
  it('asks with the source as host:port; a throwing predicate admits nobody and reports', () => {
    const asked: string[] = []
    const failed: unknown[] = []
    const yes = admitFromSource(
      (id, address) => asked.push(`${id}@${address}`) > 0,
      (e) => failed.push(e),
    )
    expect(yes('j', { address: '::1', port: 9 })).toEqual({ host: '::1', port: 9 })
    expect(yes('j', undefined)).toBeUndefined()
    expect(asked).toEqual(['j@[::1]:9'])
    const boom = admitFromSource(
      () => {
        throw new Error('bad predicate')
      },
      (e) => failed.push(e),
    )
    expect(boom('j', { address: '127.0.0.1', port: 9 })).toBeUndefined()
    expect(failed.map(String)).toEqual(['Error: bad predicate'])
  })
})

describe('the runtime over UDP: a send to an id not in the address book', () => {
  it('is dropped and told to the protocol; the node keeps running', async () => {
    const a = await node({ id: 'a' })
    const b = await node({ id: 'b' })
    a.setPeer('b', `127.0.0.1:${b.address.port}`)
    b.setPeer('a', `127.0.0.1:${a.address.port}`)
    const heardAtB: unknown[] = []
    b.onMessage((_from, msg) => void heardAtB.push(msg))
    const signals: TransportSignal[] = []
    const protocol: Protocol<unknown, never, unknown> = {
      onMessage(_from, msg, ctx) {
        // Gossip names a member whose address nobody gave this node.
        ctx.send('ghost', msg)
        ctx.send('b', msg)
      },
      onSignal: (signal) => void signals.push(signal),
    }
    const errors: unknown[] = []
    handles.push(
      runProtocol(protocol, {
        transport: a,
        members: ['a', 'b'],
        onError: (e) => void errors.push(e),
      }),
    )
    b.send('a', 'one')
    b.send('a', 'two')
    await pollUntil(() => heardAtB.length >= 2, 'both forwards to reach b', 10_000)
    expect(heardAtB).toEqual(['one', 'two'])
    expect(signals).toEqual([
      { type: 'unknown-peer', peer: 'ghost', dropped: 1 },
      { type: 'unknown-peer', peer: 'ghost', dropped: 1 },
    ])
    expect(errors).toEqual([])
    expect(handles[0]!.stopped).toBe(false)
  })
})
