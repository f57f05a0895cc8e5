/** queryNtp and createNtpServer against each other and scripted peers, on loopback only. */
import { describe, expect, it } from 'vitest'
import { freePorts } from '../../../../test-support/processes.js'
import {
  InvalidArgumentError,
  NtpAbortedError,
  NtpNetworkError,
  NtpRejectedError,
  NtpTimeoutError,
} from '../../src/ntp/errors.js'
import { encodePacket, textToReferenceId } from '../../src/ntp/packet.js'
import { answerNtpRequest } from '../../src/ntp/server.js'
import { createNtpServer, queryNtp } from '../../src/ntp/udp.js'
import { loopbackPeers, rejectionOf } from '../support/loopback-peers.js'

const { server, fake, socket: boundSocket } = loopbackPeers()

/** Answers as a correct server would, the clock being Date.now() + offsetMs. */
const honest = (request: Buffer, offsetMs = 0) =>
  answerNtpRequest(request, Date.now() + offsetMs, Date.now() + offsetMs)

/** A reply that looks right but whose origin is not the request's transmit timestamp. */
const wrongOrigin = (request: Buffer) => {
  const reply = honest(request)
  reply[31]! ^= 1
  return reply
}

describe('NTP over UDP (loopback)', () => {
  it('our client measures our server 250 ms ahead, within the error bound (IPv4)', async () => {
    const s = await server({ offsetMs: 250 })
    const r = await queryNtp('127.0.0.1', { port: s.port, samples: 4, timeoutMs: 10_000 })
    console.log(
      `IPv4: offset ${r.offsetMs.toFixed(3)} ms, delay ${r.delayMs.toFixed(3)} ms, bound ±${r.errorBoundMs.toFixed(3)} ms`,
    )
    // One clock on both sides: the true offset is exactly 250, and the bound must hold.
    expect(Math.abs(r.offsetMs - 250)).toBeLessThanOrEqual(r.errorBoundMs + 0.01)
    expect(r.samples).toHaveLength(4)
    expect(r).toMatchObject({ stratum: 10, reference: '127.127.1.1', address: '127.0.0.1' })
    expect(r.delayMs).toBe(Math.min(...r.samples.map((x) => x.delayMs)))
    expect(s.answered).toBe(r.attempts)
  })

  it('IPv6: a server on ::1 100 ms behind, queried as ::1 and [::1]', async () => {
    const s = await server({ host: '::1', offsetMs: -100 })
    expect(s.address).toBe('::1')
    for (const host of ['::1', '[::1]']) {
      const r = await queryNtp(host, { port: s.port, samples: 2, timeoutMs: 10_000 })
      expect(Math.abs(r.offsetMs + 100)).toBeLessThanOrEqual(r.errorBoundMs + 0.01)
      expect(r.address).toBe('::1')
    }
  })

  it('a host name resolves (localhost)', async () => {
    const s = await server({ host: 'localhost', offsetMs: 40 })
    const r = await queryNtp('localhost', { port: s.port, samples: 1, timeoutMs: 10_000 })
    expect(Math.abs(r.offsetMs - 40)).toBeLessThanOrEqual(r.errorBoundMs + 0.01)
  })

  /** A query of a fake server that resends every 100 ms, with time for it. */
  const queryWithRetries = (port: number, samples: number) =>
    queryNtp('127.0.0.1', { port, samples, retryMs: 100, timeoutMs: 20_000 })

  it('resends a lost request within the time limit', async () => {
    const f = await fake((request, n) => (n === 0 || n === 2 ? undefined : honest(request)))
    const r = await queryWithRetries(f.port, 2)
    expect(r.samples).toHaveLength(2)
    expect(r.attempts).toBe(4)
  })

  it('ignores a reply with the wrong origin and takes the right one that follows', async () => {
    const g = await fake((request, n) => (n === 0 ? wrongOrigin(request) : honest(request)))
    const r = await queryWithRetries(g.port, 1)
    expect(r.samples).toHaveLength(1)
    expect(r.attempts).toBe(2)
  })

  it('times out with the last refusal named when every reply is refused', async () => {
    const f = await fake((request) => wrongOrigin(request))
    const error = await rejectionOf(
      NtpTimeoutError,
      queryNtp('127.0.0.1', { port: f.port, samples: 1, retryMs: 50, timeoutMs: 400 }),
    )
    expect(error.lastRejection?.reason).toBe('origin-mismatch')
    expect(error.message).toMatch(/origin-mismatch/)
  })

  it('times out naming ICMP port unreachable when nothing listens', async () => {
    const [port] = await freePorts(1)
    const error = await rejectionOf(
      NtpTimeoutError,
      queryNtp('127.0.0.1', { port: port!, samples: 1, retryMs: 50, timeoutMs: 400 }),
    )
    expect(error).toMatchObject({ code: 'ERR_NTP_TIMEOUT', portUnreachable: true })
    expect(error.attempts).toBeGreaterThanOrEqual(2)
  })

  it("stops at a kiss-o'-death: DENY at once; RATE keeps the samples already taken", async () => {
    const kiss = (request: Buffer, code: string) => {
      const reply = honest(request)
      reply[0] = 0b11_100_100 // leap 3, version 4, server
      reply[1] = 0
      reply.set(
        encodePacket({ ...zeroPacket(), referenceId: textToReferenceId(code) }).subarray(12, 16),
        12,
      )
      return reply
    }
    const deny = await fake((request) => kiss(request, 'DENY'))
    const error = await rejectionOf(
      NtpRejectedError,
      queryNtp('127.0.0.1', { port: deny.port, timeoutMs: 10_000 }),
    )
    expect(error).toMatchObject({ reason: 'kiss-o-death', kissCode: 'DENY' })
    expect(deny.received).toBe(1)
    const rate = await fake((request, n) => (n === 0 ? honest(request) : kiss(request, 'RATE')))
    const r = await queryNtp('127.0.0.1', { port: rate.port, samples: 4, timeoutMs: 10_000 })
    expect(r.samples).toHaveLength(1)
    expect(rate.received).toBe(2)
  })

  it('honours an AbortSignal, before and during the query', async () => {
    const silent = await fake(() => undefined)
    await rejectionOf(
      NtpAbortedError,
      queryNtp('127.0.0.1', { port: silent.port, signal: AbortSignal.abort('no') }),
    )
    const controller = new AbortController()
    const query = queryNtp('127.0.0.1', {
      port: silent.port,
      signal: controller.signal,
      timeoutMs: 60_000,
    })
    setTimeout(() => controller.abort(new Error('enough')), 100)
    const error = await rejectionOf(NtpAbortedError, query)
    expect(error.cause).toMatchObject({ message: 'enough' })
  })

  it('refuses bad options with InvalidArgumentError', async () => {
    for (const options of [{ samples: 0 }, { port: 70_000 }, { timeoutMs: 0 }, { intervalMs: -1 }])
      await rejectionOf(InvalidArgumentError, queryNtp('127.0.0.1', options))
    await expect(createNtpServer({ port: 0, offsetMs: Number.NaN })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    )
    await expect(createNtpServer({ port: 0, stratum: 16 })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    )
  })

  it('the server leaves bad requests unanswered and counts them', async () => {
    const refused: string[] = []
    const s = await server({ onRejected: (error) => refused.push(error.reason) })
    const socket = await boundSocket()
    const replies: Buffer[] = []
    socket.on('message', (m) => replies.push(m))
    const send = (bytes: Uint8Array) =>
      new Promise<void>((resolve) => socket.send(bytes, s.port, '127.0.0.1', () => resolve()))
    await send(new Uint8Array(10))
    await send(
      encodePacket({ ...zeroPacket(), mode: 4, transmitTimestamp: { seconds: 1, fraction: 0 } }),
    )
    // A valid query afterwards: once it is answered, the bad ones were handled before it.
    await queryNtp('127.0.0.1', { port: s.port, samples: 1, timeoutMs: 10_000 })
    expect(refused).toEqual(['short', 'mode'])
    expect(s.rejected).toBe(2)
    expect(replies).toHaveLength(0)
  })

  it('a port in use is a network error; close() can be called twice', async () => {
    const s = await server({})
    const error = await rejectionOf(NtpNetworkError, createNtpServer({ port: s.port }))
    expect(error.message).toMatch(/EADDRINUSE/)
    await s.close()
    await s.close()
  })
})

function zeroPacket() {
  const zero = { seconds: 0, fraction: 0 }
  return {
    leap: 0 as const,
    version: 4,
    mode: 3 as const,
    stratum: 0,
    poll: 0,
    precision: 0,
    rootDelay: 0,
    rootDispersion: 0,
    referenceId: 0,
    referenceTimestamp: zero,
    originTimestamp: zero,
    receiveTimestamp: zero,
    transmitTimestamp: zero,
  }
}
