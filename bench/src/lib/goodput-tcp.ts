/**
 * The baseline side of the goodput benchmark: node:net with length-prefixed frames (u32 big-endian
 * length, then the message JSON-encoded, as the UDP transport's default codec does).
 */
import { once } from 'node:events'
import { connect, createServer, type Socket } from 'node:net'
import { InOrderTally, makeMessage, nowMs, type RunSpec } from './goodput-protocol.js'
import type { RunSide, SideContext } from './goodput-side.js'

const lengthBytes = 4

/** Cuts a byte stream into frames; keeps the incomplete tail for the next chunk. */
class FrameReader {
  private pending: Buffer = Buffer.alloc(0)

  constructor(private readonly onFrame: (payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    const buf = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk
    let offset = 0
    // Bounded: every pass consumes one whole frame.
    while (buf.length - offset >= lengthBytes) {
      const length = buf.readUInt32BE(offset)
      const end = offset + lengthBytes + length
      if (end > buf.length) break
      this.onFrame(buf.subarray(offset + lengthBytes, end))
      offset = end
    }
    this.pending = buf.subarray(offset)
  }
}

function frame(message: string): Buffer {
  const json = JSON.stringify(message)
  const length = Buffer.byteLength(json)
  const out = Buffer.allocUnsafe(lengthBytes + length)
  out.writeUInt32BE(length, 0)
  out.write(json, lengthBytes)
  return out
}

export async function receiveTcp(spec: RunSpec, ctx: SideContext): Promise<RunSide> {
  const tally = new InOrderTally(spec.count, (at) =>
    ctx.emit({ event: 'complete', run: spec.run, lastDeliveryAt: at }),
  )
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    const frames = new FrameReader((payload) => tally.deliver(JSON.parse(payload.toString('utf8'))))
    socket.on('data', (chunk: Buffer) => frames.push(chunk))
    socket.on('error', () => {}) // a reset at stop is expected; the tally tells what arrived
    socket.on('close', () => sockets.delete(socket))
  })
  server.listen(spec.port, ctx.self)
  await once(server, 'listening')
  return {
    async stop() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      return tally.summary()
    },
  }
}

export async function sendTcp(spec: RunSpec, ctx: SideContext): Promise<RunSide> {
  const abort = new AbortController()
  let accepted = 0
  let backpressureWaits = 0
  let error: string | undefined
  // The clock starts at connect, as the UDP link's starts with its handshake.
  ctx.emit({ event: 'started', run: spec.run, firstSendAt: nowMs() })
  const socket = connect({ host: ctx.peer, port: spec.port })
  const sendAll = async () => {
    await once(socket, 'connect', { signal: abort.signal })
    // Bounded: `count` frames, and every wait for 'drain' ends once `stop` aborts it.
    while (accepted < spec.count && !abort.signal.aborted) {
      const ok = socket.write(frame(makeMessage(accepted, spec.size)))
      accepted++
      if (!ok) {
        backpressureWaits++
        await once(socket, 'drain', { signal: abort.signal })
      }
    }
    socket.end()
  }
  const sending = sendAll().catch((e: unknown) => {
    if (abort.signal.aborted) return
    error = String(e)
    ctx.emit({ event: 'failed', run: spec.run, error })
  })
  socket.on('error', () => {}) // reported through `sending` (once() rejects on 'error')
  return {
    async stop() {
      abort.abort()
      await sending
      socket.destroy()
      return { accepted, backpressureWaits, error }
    },
  }
}
