import { createSocket } from 'node:dgram'
import { afterEach, describe, expect, it } from 'vitest'
import {
  InvalidArgumentError,
  MessageTooLargeError,
  TransportClosedError,
  UnknownNodeError,
} from '../errors.js'
import { pollUntil } from '../testing/index.js'
import type { TransportSignal } from '../transport.js'
import { Authenticator } from './auth.js'
import {
  AddressError,
  BackpressureError,
  type Codec,
  createUdpTransport,
  type UdpDropEvent,
  type UdpTransport,
  type UdpTransportOptions,
} from './index.js'
import { encodeDatagram, encodeIdField, MAC_BYTES, PacketType } from './wire/header.js'

const open: UdpTransport<unknown>[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close({ graceful: false })))
})

async function node<Msg = unknown>(options: UdpTransportOptions<Msg>): Promise<UdpTransport<Msg>> {
  const t = await createUdpTransport<Msg>(options)
  open.push(t as UdpTransport<unknown>)
  return t
}

async function pair(options: Partial<UdpTransportOptions> = {}) {
  const a = await node({ id: 'a', ...options })
  const b = await node({ id: 'b', ...options })
  a.setPeer('b', `127.0.0.1:${b.address.port}`)
  b.setPeer('a', `127.0.0.1:${a.address.port}`)
  return { a, b, atA: inbox(a), atB: inbox(b) }
}

function inbox(t: UdpTransport<unknown>): unknown[] {
  const got: unknown[] = []
  t.onMessage((_from, msg) => got.push(msg))
  return got
}

function signals(t: UdpTransport<unknown>): TransportSignal[] {
  const got: TransportSignal[] = []
  t.onSignal((s) => got.push(s))
  return got
}

/** A port with nobody behind it (bound, then closed). */
async function deadPort(): Promise<number> {
  const s = createSocket('udp4')
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()))
  const port = s.address().port
  await new Promise<void>((r) => s.close(() => r()))
  return port
}

describe('UDP transport: sockets and the address book', () => {
  it('binds port 0 to a real port and reports it', async () => {
    const t = await node({ id: 'x' })
    expect(t.address.port).toBeGreaterThan(0)
    expect(t.address.family).toBe('IPv4')
    expect(t.peers).toEqual([])
  })

  it('refuses a port already in use with a typed error', async () => {
    const t = await node({ id: 'x' })
    await expect(createUdpTransport({ id: 'y', bind: { port: t.address.port } })).rejects.toThrow(
      AddressError,
    )
  })

  it('checks addresses and ids', async () => {
    const t = await node({ id: 'x' })
    expect(() => t.setPeer('y', 'nohost')).toThrow(AddressError)
    expect(() => t.setPeer('y', 'example.com:80')).toThrow(AddressError)
    expect(() => t.setPeer('y', '127.0.0.1:0')).toThrow(AddressError)
    expect(() => t.setPeer('y', '[::1]:4000')).toThrow(AddressError) // IPv6 peer on an IPv4 socket
    expect(() => t.setPeer('z'.repeat(300), '127.0.0.1:4000')).toThrow(InvalidArgumentError)
    expect(() => t.send('nobody', 1)).toThrow(UnknownNodeError)
    t.setPeer('y', 'localhost:4000')
    expect(t.peers).toEqual(['y'])
    expect(t.removePeer('y')).toBe(true)
    expect(() => t.send('y', 1)).toThrow(UnknownNodeError)
  })

  it('accepts numeric ids through a Map address book', async () => {
    const b = await node({ id: 2 })
    const a = await node({
      id: 1,
      peers: new Map([[2, { host: '127.0.0.1', port: b.address.port }]]),
    })
    b.setPeer(1, { host: '127.0.0.1', port: a.address.port })
    const from: unknown[] = []
    b.onMessage((f) => from.push(f))
    a.send(2, 'hi')
    await pollUntil(() => from.length === 1)
    expect(from).toEqual([1])
  })

  it('follows a peer that moves to another address at run time', async () => {
    const { a, b, atB } = await pair()
    a.send('b', 1)
    await pollUntil(() => atB.length === 1)
    // b is replaced by a new process (a new incarnation) listening elsewhere.
    await b.close()
    const b2 = await node({ id: 'b', peers: { a: `127.0.0.1:${a.address.port}` } })
    const atB2 = inbox(b2)
    const seen = signals(a)
    a.setPeer('b', `127.0.0.1:${b2.address.port}`)
    for (let i = 2; i <= 5; i++) a.send('b', i)
    await pollUntil(() => atB2.length === 4, 'messages at the new b')
    expect(atB2).toEqual([2, 3, 4, 5])
    expect(seen).toEqual([{ type: 'peer-restarted', peer: 'b' }])
  })

  it('delivers messages to itself, asynchronously and in order', async () => {
    const t = await node({ id: 'me' })
    const got = inbox(t)
    t.send('me', { n: 1 })
    t.send('me', { n: 2 })
    expect(got).toEqual([])
    await pollUntil(() => got.length === 2)
    expect(got).toEqual([{ n: 1 }, { n: 2 }])
  })

  it('works over IPv6 loopback', async (ctx) => {
    let a: UdpTransport<unknown>
    try {
      a = await node({ id: 'a', bind: { host: '::1' } })
    } catch {
      console.log('skipped: ::1 cannot be bound on this machine (no IPv6 loopback)')
      ctx.skip()
      return
    }
    const b = await node({ id: 'b', bind: { host: '::1' } })
    a.setPeer('b', `[::1]:${b.address.port}`)
    b.setPeer('a', { host: '::1', port: a.address.port })
    const atB = inbox(b)
    for (let i = 0; i < 20; i++) a.send('b', i)
    await pollUntil(() => atB.length === 20)
    expect(atB).toEqual([...Array(20).keys()])
    expect(b.address.family).toBe('IPv6')
  })

  it('close frees the socket and every timer, and is idempotent', async () => {
    const t = await createUdpTransport({ id: 'x', peers: { y: `127.0.0.1:${await deadPort()}` } })
    const port = t.address.port
    const internals = t as unknown as { timer: unknown; flushHandle: unknown; sweepTimer: unknown }
    t.send('y', 'never answered') // arms the handshake retransmission timer
    t.send('x', 'to self') // schedules the end-of-tick flush
    expect(internals.timer).toBeDefined()
    expect(internals.flushHandle).toBeDefined()
    const [report, again2] = await Promise.all([
      t.close({ graceful: false }),
      t.close({ graceful: false }),
    ])
    expect(again2).toBe(report)
    expect(report).toEqual({
      graceful: false,
      abandonedMessages: 2,
      abandoned: [
        { peer: 'x', messages: 1 },
        { peer: 'y', messages: 1 },
      ],
    })
    expect(t.closed).toBe(true)
    expect(internals.timer).toBeUndefined()
    expect(internals.flushHandle).toBeUndefined()
    expect(internals.sweepTimer).toBeUndefined()
    expect(() => t.send('y', 1)).toThrow(TransportClosedError)
    // The port is free again.
    const again = await node({ id: 'x', bind: { port } })
    expect(again.address.port).toBe(port)
  })
})

describe('UDP transport: messages larger than a datagram', () => {
  for (const reliable of [true, false]) {
    it(`fragments and reassembles a 200 kB message (${reliable ? 'reliable' : 'unreliable'})`, async () => {
      const { a, atB } = await pair({ reliable })
      const big = { blob: 'x'.repeat(200_000), tail: 'end' }
      a.send('b', big)
      a.send('b', 'after')
      await pollUntil(() => atB.length === 2)
      expect(atB[0]).toEqual(big)
      expect(atB[1]).toBe('after')
      expect(a.stats.datagramsSent).toBeGreaterThan(170)
    })
  }

  it('refuses a message beyond maxMessageBytes with a typed error, sending nothing', async () => {
    const { a } = await pair({ maxMessageBytes: 10_000 })
    const sent = a.stats.datagramsSent
    expect(() => a.send('b', 'y'.repeat(20_000))).toThrow(MessageTooLargeError)
    expect(a.stats.datagramsSent).toBe(sent)
  })

  it('drops an unreliable partial message after the reassembly timeout', async () => {
    const { a, b } = await pair({ reliable: false, reassembly: { timeoutMs: 30 } })
    // Let the handshake finish, then send only the first fragment of a 3-fragment message by hand.
    a.send('b', 'hello')
    await pollUntil(() => b.stats.messagesDelivered === 1)
    const fragment = encodeDatagram(
      {
        type: PacketType.Unreliable,
        srcInc: a.linkInfo('b')!.incarnation,
        dstInc: b.linkInfo('a')!.incarnation,
        pn: 1e6,
        srcIdField: encodeIdField('a'),
        dstIdField: encodeIdField('b'),
        frag: { msgId: 77, index: 0, count: 3 },
      },
      Buffer.from('"part'),
      0,
    )
    await sendRaw(fragment, b.address.port)
    await pollUntil(() => b.stats.dropped['reassembly-timeout'] === 1, 'reassembly timeout')
  })
})

describe('UDP transport: reliability limits', () => {
  it('signals peer-unreachable with the number of dropped messages after maxAttempts', async () => {
    const t = await node({
      id: 'a',
      peers: { b: `127.0.0.1:${await deadPort()}` },
      retransmit: { maxAttempts: 3, initialRtoMs: 10, minRtoMs: 5, maxRtoMs: 20 },
    })
    const seen = signals(t)
    for (let i = 0; i < 5; i++) t.send('b', i)
    await pollUntil(() => seen.length > 0, 'peer-unreachable')
    expect(seen).toEqual([{ type: 'peer-unreachable', peer: 'b', dropped: 5 }])
    expect(t.stats.messagesAbandoned).toBe(5)
  })

  it('gives up on a peer that stops answering mid-stream, and the survivor resumes after a skip', async () => {
    const retransmit = { maxAttempts: 3, initialRtoMs: 10, minRtoMs: 5, maxRtoMs: 20 }
    const { a, b, atB } = await pair({ retransmit })
    a.send('b', 'first')
    await pollUntil(() => atB.length === 1)
    const seen = signals(a)
    // Point a at nowhere: the next messages are never acknowledged.
    a.setPeer('b', `127.0.0.1:${await deadPort()}`)
    a.send('b', 'lost-1')
    a.send('b', 'lost-2')
    await pollUntil(() => seen.length === 1, 'peer-unreachable')
    expect(seen[0]).toEqual({ type: 'peer-unreachable', peer: 'b', dropped: 2 })
    // Back to the right address: b skips what a gave up on, and FIFO goes on.
    a.setPeer('b', `127.0.0.1:${b.address.port}`)
    a.send('b', 'second')
    await pollUntil(() => atB.length === 2)
    expect(atB).toEqual(['first', 'second'])
    expect(b.stats.skipped).toBe(2)
  })

  it('throws BackpressureError when the send queue is full, and queues nothing', async () => {
    const t = await node({
      id: 'a',
      peers: { b: `127.0.0.1:${await deadPort()}` },
      sendQueue: { maxMessages: 10 },
    })
    for (let i = 0; i < 10; i++) t.send('b', i)
    expect(() => t.send('b', 10)).toThrow(BackpressureError)
    const t2 = await node({
      id: 'c',
      peers: { b: `127.0.0.1:${await deadPort()}` },
      sendQueue: { maxBytes: 100 },
    })
    t2.send('b', 'x'.repeat(60))
    expect(() => t2.send('b', 'y'.repeat(60))).toThrow(BackpressureError)
    expect(t2.stats.messagesSent).toBe(1)
  })

  it('recognises a restarted peer (same address, new incarnation) and resets the link', async () => {
    const { a, b, atB } = await pair()
    const atA = inbox(a)
    for (let i = 0; i < 10; i++) a.send('b', i)
    b.send('a', 'from-old-b')
    await pollUntil(() => atB.length === 10 && atA.length === 1)
    const port = b.address.port
    await b.close()
    const b2 = await node({ id: 'b', bind: { port }, peers: { a: `127.0.0.1:${a.address.port}` } })
    const atB2 = inbox(b2)
    const seen = signals(a)
    // The new b starts from sequence 0; a must not take it for old b's duplicates.
    b2.send('a', 'from-new-b')
    for (let i = 10; i < 20; i++) a.send('b', i)
    await pollUntil(() => atA.length === 2 && atB2.length === 10, 'traffic with the new b')
    expect(atA).toEqual(['from-old-b', 'from-new-b'])
    expect(atB2).toEqual([...Array(10).keys()].map((i) => i + 10))
    expect(seen).toEqual([{ type: 'peer-restarted', peer: 'b' }])
    expect(a.stats.peerRestarts).toBe(1)
  })

  it('still delivers in unreliable mode, without acknowledgements', async () => {
    const { a, atB } = await pair({ reliable: false })
    for (let i = 0; i < 50; i++) a.send('b', i)
    await pollUntil(() => atB.length === 50)
    expect(a.stats.acksSent).toBe(0)
  })

  it('uses a pluggable codec', async () => {
    const upper: Codec<string> = {
      name: 'upper-text',
      encode: (msg) => Buffer.from(msg.toUpperCase()),
      decode: (bytes) => Buffer.from(bytes).toString(),
    }
    const a = await node<string>({ id: 'a', codec: upper })
    const b = await node<string>({
      id: 'b',
      codec: upper,
      peers: { a: `127.0.0.1:${a.address.port}` },
    })
    a.setPeer('b', `127.0.0.1:${b.address.port}`)
    const got: string[] = []
    b.onMessage((_f, m) => got.push(m))
    a.send('b', 'hello')
    await pollUntil(() => got.length === 1)
    expect(got).toEqual(['HELLO'])
  })
})

async function sendRaw(bytes: Buffer, port: number, host = '127.0.0.1'): Promise<void> {
  const s = createSocket('udp4')
  await new Promise<void>((resolve, reject) =>
    s.send(bytes, port, host, (e) => (e ? reject(e) : resolve())),
  )
  await new Promise<void>((r) => s.close(() => r()))
}

describe('UDP transport: hostile input', () => {
  it('drops and counts each kind of bad datagram, with an event, and never delivers it', async () => {
    const key = 'hostile-input-shared-key'
    const { a, b, atB } = await pair({ key })
    const events: UdpDropEvent[] = []
    b.onDrop((e) => events.push(e))
    a.send('b', 'legit')
    await pollUntil(() => atB.length === 1)
    let pn = 500 // ahead of a's own packet numbers, yet within the replay window
    const header = (over: Partial<Parameters<typeof encodeDatagram>[0]> = {}) => ({
      type: PacketType.Unreliable,
      srcInc: a.linkInfo('b')!.incarnation,
      dstInc: b.linkInfo('a')!.incarnation,
      pn: pn++,
      srcIdField: encodeIdField('a'),
      dstIdField: encodeIdField('b'),
      ...over,
    })
    const signed = (h: ReturnType<typeof header>, payload?: Buffer, k = key) => {
      const buf = encodeDatagram(h, payload, MAC_BYTES)
      new Authenticator(k).sign(buf)
      return buf
    }
    const good = signed(header(), Buffer.from('"x"'))
    const cases: Array<[string, Buffer]> = [
      ['oversized', Buffer.alloc(1300, 1)],
      ['truncated', good.subarray(0, 10)],
      ['malformed', Buffer.from('GET / HTTP/1.1\r\n\r\n')],
      ['bad-version', Buffer.from([0x73, 0x64, 99, ...good.subarray(3)])],
      ['unauthenticated', encodeDatagram(header(), Buffer.from('"x"'), 0)],
      ['bad-mac', signed(header(), Buffer.from('"x"'), 'some-other-key-of-16+')],
      [
        'unknown-sender',
        signed(header({ srcIdField: encodeIdField('mallory') }), Buffer.from('"x"')),
      ],
      ['wrong-destination', signed(header({ dstIdField: encodeIdField('c') }), Buffer.from('"x"'))],
      ['stale-incarnation', signed(header({ dstInc: 42 }), Buffer.from('"x"'))],
      ['undecodable', signed(header(), Buffer.from('{not json'))],
    ]
    for (const [, bytes] of cases) await sendRaw(bytes, b.address.port)
    await sendRaw(good, b.address.port)
    await sendRaw(good, b.address.port) // the replay
    await pollUntil(() => events.length >= cases.length + 1, 'drop events')
    for (const [reason] of cases)
      expect(
        b.stats.dropped[reason as keyof typeof b.stats.dropped],
        `${reason} ${JSON.stringify(b.stats.dropped)}`,
      ).toBe(1)
    expect(b.stats.dropped.replayed).toBe(1)
    expect(events.map((e) => e.reason).sort()).toEqual(
      [...cases.map(([r]) => r), 'replayed'].sort(),
    )
    expect(events.find((e) => e.reason === 'unknown-sender')?.from).toBe('mallory')
    expect(atB).toEqual(['legit', 'x'])
  })

  it('a node without the key cannot talk to one that has it', async () => {
    const keyed = await node({ id: 'a', key: 'the-group-secret-key' })
    const plain = await node({ id: 'b', peers: { a: `127.0.0.1:${keyed.address.port}` } })
    keyed.setPeer('b', `127.0.0.1:${plain.address.port}`)
    const atKeyed = inbox(keyed)
    const atPlain = inbox(plain)
    plain.send('a', 'let me in')
    keyed.send('b', 'secret')
    await pollUntil(
      () => keyed.stats.dropped.unauthenticated > 0 && plain.stats.dropped['bad-mac'] > 0,
    )
    expect(atKeyed).toEqual([])
    expect(atPlain).toEqual([])
  })

  /** Two keyed nodes that know each other: `a` with `aOptions`, `b` on HMAC-SHA256 (JS engine). */
  async function keyedPair(aOptions: Pick<UdpTransportOptions, 'mac' | 'hmacEngine'>) {
    const key = 'the-group-secret-key'
    const a = await node({ id: 'a', key, ...aOptions })
    const b = await node({
      id: 'b',
      key,
      mac: 'hmac-sha256',
      peers: { a: `127.0.0.1:${a.address.port}` },
    })
    a.setPeer('b', `127.0.0.1:${b.address.port}`)
    return { a, b, atA: inbox(a), atB: inbox(b) }
  }

  it('members on different MACs refuse each other: every datagram is bad-mac, nothing delivered', async () => {
    const { a, b, atA, atB } = await keyedPair({})
    a.send('b', 'hello')
    b.send('a', 'hello')
    await pollUntil(() => a.stats.dropped['bad-mac'] > 0 && b.stats.dropped['bad-mac'] > 0)
    expect(atA).toEqual([])
    expect(atB).toEqual([])
    await expect(createUdpTransport({ id: 'c', mac: 'sha1' as never })).rejects.toThrow(
      /mac must be/,
    )
  })

  it('a node on the node:crypto HMAC engine talks with one on the JS engine', async () => {
    const { a, b, atA, atB } = await keyedPair({ hmacEngine: 'node-crypto' })
    for (let i = 0; i < 20; i++) {
      a.send('b', i)
      b.send('a', -i - 1)
    }
    await pollUntil(() => atA.length === 20 && atB.length === 20)
    expect(atB).toEqual([...Array(20).keys()])
    expect(a.stats.dropped['bad-mac'] + b.stats.dropped['bad-mac']).toBe(0)
  })

  it('an exception in a message handler neither stops delivery nor escapes into the socket', async () => {
    const { a, b, atB } = await pair()
    const errors: unknown[] = []
    const onUncaught = (e: unknown) => errors.push(e)
    process.prependListener('uncaughtException', onUncaught)
    try {
      let calls = 0
      b.onMessage(() => {
        calls++
        if (calls === 1) throw new Error('application bug')
      })
      a.send('b', 1)
      a.send('b', 2)
      await pollUntil(() => atB.length === 2 && errors.length === 1)
      expect(b.stats.handlerErrors).toBe(1)
      expect((errors[0] as Error).message).toBe('application bug')
    } finally {
      process.off('uncaughtException', onUncaught)
    }
  })
})
