/**
 * The setup the NTP client tests over UDP share: servers of ours and scripted peers on loopback,
 * each closed after its test, and a query's rejection typed by the error class expected.
 */
import { createSocket, type Socket } from 'node:dgram'
import { afterEach, expect } from 'vitest'
import { createNtpServer, type NtpServerHandle } from '../../src/ntp/udp.js'
import { type FakeServer, fakeNtpServer } from './fake-server.js'

export interface LoopbackPeers {
  /** Our server on a free loopback port (options as createNtpServer's). */
  server(options?: Parameters<typeof createNtpServer>[0]): Promise<NtpServerHandle>
  /** A scripted peer: for the n-th request it answers the bytes `script` returns, or nothing. */
  fake(script: Parameters<typeof fakeNtpServer>[0]): Promise<FakeServer>
  /** A UDP socket bound on 127.0.0.1, for sending raw datagrams. */
  socket(): Promise<Socket>
}

/** Call at the top of a test file: what it starts is closed after each test. */
export function loopbackPeers(): LoopbackPeers {
  const cleanups: Array<() => Promise<void>> = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup()
  })
  return {
    async server(options = {}) {
      const s = await createNtpServer({ port: 0, ...options })
      cleanups.push(() => s.close())
      return s
    },
    async fake(script) {
      const f = await fakeNtpServer(script)
      cleanups.push(() => f.close())
      return f
    },
    async socket() {
      const socket = createSocket('udp4')
      cleanups.push(() => new Promise<void>((resolve) => socket.close(() => resolve())))
      await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
      return socket
    },
  }
}

/** The error `promise` rejects with, checked to be an `ErrorClass` and typed as one. */
export async function rejectionOf<E extends Error>(
  ErrorClass: abstract new (...args: never[]) => E,
  promise: Promise<unknown>,
): Promise<E> {
  let error: unknown
  try {
    await promise
  } catch (caught) {
    error = caught
  }
  expect(error).toBeInstanceOf(ErrorClass)
  if (!(error instanceof ErrorClass)) throw new Error('unreachable: checked above')
  return error
}
