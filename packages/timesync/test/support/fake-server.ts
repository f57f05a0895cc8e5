/** A scripted UDP peer on loopback, for the client's tests: it answers as `script` says. */
import { createSocket, type RemoteInfo } from 'node:dgram'

export interface FakeServer {
  port: number
  /** Requests received so far. */
  received: number
  close(): Promise<void>
}

/**
 * Binds 127.0.0.1 on a free port; for the n-th request (from 0), `script` returns the bytes to
 * send back, or undefined for silence.
 */
export async function fakeNtpServer(
  script: (request: Buffer, n: number) => Uint8Array | undefined,
): Promise<FakeServer> {
  const socket = createSocket('udp4')
  const fake: FakeServer = {
    port: 0,
    received: 0,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  }
  socket.on('message', (request: Buffer, from: RemoteInfo) => {
    const reply = script(request, fake.received++)
    if (reply !== undefined) socket.send(reply, from.port, from.address)
  })
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
  fake.port = socket.address().port
  return fake
}
