import { CodecError } from '@sd/transport'
import { createUdpTransport, jsonCodec } from '@sd/transport/udp'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import {
  type CentralizedMessage,
  centralized,
  centralizedCodec,
  createMutex,
} from '../src/index.js'

// Any value: the codec must carry whatever the fallback carries.
const codec = centralizedCodec<unknown>(jsonCodec)
const viaJson = (m: unknown) => JSON.parse(JSON.stringify(m)) as unknown
const isBinary = (bytes: Uint8Array) => bytes[0]! >= 0x80

function random(seed: number): () => number {
  let x = seed >>> 0 || 1
  return () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0
    return x / 4294967296
  }
}

/** Numbers of every kind JSON carries: integers small and past 2^32, fractions, negatives, -0. */
function numberOf(r: () => number): number {
  const kinds = [
    () => Math.floor(r() * 100),
    () => 2 ** 32 + Math.floor(r() * 2 ** 20),
    () => r() * 1e6,
    () => -r() * 1e-9,
    () => -0,
    () => Number.MAX_SAFE_INTEGER,
    () => 5e-324,
  ]
  return kinds[Math.floor(r() * kinds.length)]!()
}

function nameOf(r: () => number): string {
  const names = [
    'default',
    '',
    'orders/42',
    'fila de espera ç',
    'ロック',
    'key-😀',
    'x'.repeat(300),
  ]
  return names[Math.floor(r() * names.length)]!
}

function hotMessage(r: () => number): Record<string, unknown> {
  const [term, resource] = [numberOf(r), nameOf(r)]
  switch (Math.floor(r() * 3)) {
    case 0:
      return { type: 'request', term, resource, seq: numberOf(r), at: numberOf(r) }
    case 1:
      return {
        type: 'grant',
        term,
        epoch: numberOf(r),
        resource,
        seq: numberOf(r),
        token: numberOf(r),
        at: numberOf(r),
      }
    default:
      return { type: 'release', term, resource, token: numberOf(r) }
  }
}

describe('centralizedCodec: REQUEST, GRANT and RELEASE in binary, the rest through the fallback', () => {
  it('decodes each of the three hot messages to what JSON would give, from a shorter binary form', () => {
    forSeeds(seedList(200), (seed) => {
      const r = random(seed)
      for (let i = 0; i < 20; i++) {
        const m = hotMessage(r)
        const bytes = codec.encode(m)
        expect(isBinary(bytes)).toBe(true)
        expect(bytes.length).toBeLessThan(jsonCodec.encode(m).length)
        const back = codec.decode(bytes)
        expect(back).toStrictEqual(viaJson(m))
        expect(Object.keys(back as object)).toEqual(Object.keys(m))
      }
    })
  })

  it('sends through the fallback whatever it cannot carry exactly, and decodes that as JSON', () => {
    const request = { type: 'request', term: 1, resource: 'r', seq: 2, at: 3.5 }
    const others: unknown[] = [
      { ...request, mode: 'shared' }, // another field (a shared entry)
      { type: 'grant', term: 1, epoch: 1, resource: 'r', seq: 2, token: 9, at: 3, burst: 8 },
      { term: 1, type: 'request', resource: 'r', seq: 2, at: 3.5 }, // another key order
      { ...request, at: Number.NaN }, // JSON writes null
      { ...request, seq: Number.POSITIVE_INFINITY },
      { ...request, resource: 'half \ud800 a pair' }, // a lone surrogate
      { ...request, resource: 'y'.repeat(70_000) },
      { ...request, term: '1' },
      { type: 'newer', term: 3, coordinator: 'n2' },
      { type: 'sync', term: 1, epoch: 2, held: [], wanted: [] },
      ['request', 1],
      'release',
      7,
      null,
    ]
    for (const m of others) {
      const bytes = codec.encode(m)
      expect(isBinary(bytes), JSON.stringify(m)?.slice(0, 80)).toBe(false)
      expect(codec.decode(bytes)).toStrictEqual(viaJson(m))
    }
  })

  it('refuses bytes it cannot read with a CodecError, never another error or a half message', () => {
    const cases: Uint8Array[] = [new Uint8Array(0), Uint8Array.of(0x80), Uint8Array.of(0xff, 1)]
    for (const m of [
      { type: 'request', term: 1, resource: 'abc', seq: 2, at: 3 },
      { type: 'grant', term: 1, epoch: 1, resource: 'abc', seq: 2, token: 9, at: 3 },
      { type: 'release', term: 1, resource: 'abc', token: 9 },
    ]) {
      const good = codec.encode(m)
      cases.push(good.subarray(0, good.length - 1), Uint8Array.of(...good, 0), good.subarray(0, 5))
      const nan = Uint8Array.from(good)
      new DataView(nan.buffer).setFloat64(1, Number.NaN, true)
      cases.push(nan)
    }
    for (const bytes of cases) expect(() => codec.decode(bytes)).toThrow(CodecError)
    forSeeds(seedList(200), (seed) => {
      const r = random(seed)
      const bytes = Uint8Array.from({ length: 1 + Math.floor(r() * 60) }, () => r() * 256)
      bytes[0] = 0x81 + Math.floor(r() * 3)
      try {
        const m = codec.decode(bytes) as Record<string, unknown>
        expect(['request', 'grant', 'release']).toContain(m.type)
      } catch (error) {
        expect(error).toBeInstanceOf(CodecError)
      }
    })
  })

  it('runs the lock over UDP, every node with the codec: acquires and releases in turn', async () => {
    const bind = { host: '127.0.0.1', port: 0 }
    const wire = centralizedCodec(jsonCodec)
    const c = await createUdpTransport<CentralizedMessage>({ id: 'c', bind, codec: wire })
    const n = await createUdpTransport<CentralizedMessage>({ id: 'n', bind, codec: wire })
    const members = ['c', 'n']
    const algorithm = centralized({ coordinator: 'c' })
    const locks = [c, n].map((transport) => createMutex({ transport, algorithm, members }))
    try {
      c.setPeer('n', `127.0.0.1:${n.address.port}`)
      n.setPeer('c', `127.0.0.1:${c.address.port}`)
      const tokens: number[] = []
      for (let i = 0; i < 3; i++) {
        const held = await locks[1]!.acquire()
        tokens.push(held.token)
        await held.release()
      }
      expect(tokens[1]).toBeGreaterThan(tokens[0]!)
      expect(tokens[2]).toBeGreaterThan(tokens[1]!)
      // The three hot messages went in binary: nothing was refused, and few bytes were sent.
      expect(n.stats.dropped.undecodable + c.stats.dropped.undecodable).toBe(0)
      expect(n.stats.messagesSent).toBe(6)
    } finally {
      await Promise.all(locks.map((l) => l.close()))
      await Promise.all([c.close({ graceful: false }), n.close({ graceful: false })])
    }
  })
})
