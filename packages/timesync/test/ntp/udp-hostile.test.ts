/**
 * Issue 20 on the UDP adapter: hole 1 (one request from source port 0 ended the server's
 * process: the reply's send threw outside the handler) and the UDP side of hole 6 (the client
 * believed absurd replies, and its error bound left out the server's root distance). Loopback
 * only; the server under attack runs in a process of its own.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { Worker } from '../../../../test-support/processes.js'
import { createNtpRequest } from '../../src/ntp/client.js'
import { NtpNetworkError, NtpTimeoutError } from '../../src/ntp/errors.js'
import { answerNtpRequest } from '../../src/ntp/server.js'
import { ZERO_TIMESTAMP } from '../../src/ntp/timestamp.js'
import { queryNtp } from '../../src/ntp/udp.js'
import { createDatagramHandler, type NtpServerCounts } from '../../src/ntp/udp-server.js'
import { loopbackPeers, rejectionOf } from '../support/loopback-peers.js'
import { gatePortZero, sendFromPortZero } from './hostile/port-zero.js'
import { serverProcess, statsOf, stopWorkers } from './hostile/server-handle.js'

/** A Node error's `code` (`EINVAL`...), if it has one. */
const codeOf = (error: unknown): string | undefined =>
  error instanceof Error && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined

const YEAR_MS = 365.25 * 86_400_000
const peers = loopbackPeers()

const workers: Worker[] = []
afterAll(() => stopWorkers(workers))

const skipPortZero = gatePortZero('the NTP server against requests from source port 0')

describe('hole 1: no datagram ends the NTP server', () => {
  it.skipIf(skipPortZero !== undefined)(
    'requests from source port 0 (raw socket): the process lives on, counts them, answers a query',
    async () => {
      const { worker, port } = await serverProcess(workers)
      const requests = [1, 2, 3].map((i) => createNtpRequest(Date.now() + i).bytes)
      expect(await sendFromPortZero(port, requests)).toBe(3)
      // Before the fix the process died here, with ERR_SOCKET_BAD_PORT from socket.send.
      const answer = await queryNtp('127.0.0.1', { port, samples: 2, timeoutMs: 10_000 })
      expect(answer.samples).toHaveLength(2)
      expect(worker.exitCode).toBeUndefined()
      expect(await statsOf(worker)).toEqual({ answered: 2, rejected: 0, unsent: 3 })
    },
  )

  it('the handler: a reply to port 0 throws in socket.send, and is counted and dropped', async () => {
    const socket = await peers.socket()
    const counts: NtpServerCounts = { answered: 0, rejected: 0, unsent: 0 }
    const unsent: string[] = []
    const handle = createDatagramHandler(
      socket,
      (request) => answerNtpRequest(request, Date.now(), Date.now()),
      counts,
      { onUnsent: (error) => unsent.push(codeOf(error) ?? String(error)) },
    )
    const request = Buffer.from(createNtpRequest(Date.now()).bytes)
    const from = { address: '127.0.0.1', family: 'IPv4' as const, port: 0, size: 48 }
    expect(() => handle(request, from)).not.toThrow()
    expect(counts).toEqual({ answered: 0, rejected: 0, unsent: 1 })
    expect(unsent).toEqual(['ERR_SOCKET_BAD_PORT'])
    // A refusal reported later, by the send's callback, moves the reply from answered to unsent.
    const failing = {
      send: (_r: Uint8Array, _p: number, _a: string, done: (e: Error | null) => void) =>
        queueMicrotask(() => done(new Error('EPERM'))),
    }
    const later = createDatagramHandler(
      failing,
      (r) => answerNtpRequest(r, Date.now(), Date.now()),
      counts,
    )
    later(request, { ...from, port: 4000 })
    expect(counts.answered).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(counts).toEqual({ answered: 0, rejected: 0, unsent: 2 })
    // A clock that fails is an unsent reply too, not a throw.
    const broken = createDatagramHandler(
      socket,
      () => {
        throw new TypeError('clock gone')
      },
      counts,
    )
    expect(() => broken(request, { ...from, port: 4000 })).not.toThrow()
    expect(counts.unsent).toBe(3)
  })

  it('the client: a connect the kernel refuses is a typed error, not a throw from a timer', async () => {
    // connect() to the broadcast address fails at once with EACCES; nothing is sent.
    const error = await rejectionOf(
      NtpNetworkError,
      queryNtp('255.255.255.255', { port: 123, timeoutMs: 1000 }),
    )
    expect(error.message).toMatch(/connect to .*EACCES/)
  })
})

describe('hole 6 over UDP: absurd replies refused, the bound includes the root distance', () => {
  it('a reply with a zero receive timestamp is refused and named (it gave an offset of years)', async () => {
    const f = await peers.fake((request) => {
      const reply = answerNtpRequest(request, Date.now(), Date.now())
      reply.fill(0, 32, 40) // T2 = 0
      return reply
    })
    const error = await rejectionOf(
      NtpTimeoutError,
      queryNtp('127.0.0.1', { port: f.port, retryMs: 50, timeoutMs: 400 }),
    )
    expect(error.lastRejection?.reason).toBe('zero-receive')
    expect(ZERO_TIMESTAMP).toEqual({ seconds: 0, fraction: 0 })
  })

  it('a server 30 years ahead is refused (offset-limit) unless maxOffsetMs lifts the limit', async () => {
    const s = await peers.server({ offsetMs: 30 * YEAR_MS })
    const error = await rejectionOf(
      NtpTimeoutError,
      queryNtp('127.0.0.1', { port: s.port, retryMs: 50, timeoutMs: 400 }),
    )
    expect(error.lastRejection?.reason).toBe('offset-limit')
    const lifted = await queryNtp('127.0.0.1', {
      port: s.port,
      samples: 1,
      timeoutMs: 10_000,
      maxOffsetMs: Number.POSITIVE_INFINITY,
    })
    expect(Math.abs(lifted.offsetMs - 30 * YEAR_MS)).toBeLessThan(lifted.errorBoundMs + 0.01)
  })

  it("the query's error bound is the best sample's root distance plus the jitter", async () => {
    const s = await peers.server({
      offsetMs: 250,
      rootDelayMs: 40,
      rootDispersionMs: 10,
    })
    const r = await queryNtp('127.0.0.1', { port: s.port, samples: 4, timeoutMs: 10_000 })
    // Root delay and dispersion travel as 16.16 seconds: 40 ms and 10 ms to within 2^-16 s.
    const root = r.best.rootDelayMs / 2 + r.best.rootDispersionMs
    expect(root).toBeCloseTo(30, 1)
    expect(r.errorBoundMs).toBeCloseTo(root + r.best.serverErrorBoundMs + r.jitterMs, 9)
    expect(r.rootDistanceMs).toBe(r.errorBoundMs)
    expect(r.serverErrorBoundMs).toBeCloseTo(r.best.serverErrorBoundMs + r.jitterMs, 9)
    expect(Math.abs(r.offsetMs - 250)).toBeLessThanOrEqual(r.serverErrorBoundMs + 0.01)
  })
})
