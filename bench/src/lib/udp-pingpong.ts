/** Ping-pong drivers for the UDP benchmark: one message in flight, echoed back, timed per round trip. */
import { createSocket } from 'node:dgram'

export interface PingPongRun {
  roundTrips: number
  elapsedMs: number
  /**
   * CPU time of this process (user + system) over the run, ms. On a loaded machine the wall
   * clock also counts the time other processes held the cores; this counts only our own work.
   */
  cpuMs: number
  /** Round-trip times in microseconds (a sample of at most `maxLatencies`). */
  latenciesUs: number[]
}

const maxLatencies = 200_000

/**
 * The baseline: two bare node:dgram sockets on loopback. With `json` each side parses the message
 * it receives and serializes the one it sends (what an application exchanging the same messages
 * over raw sockets must do); with `bytes` the datagram is echoed untouched (the floor).
 */
export async function rawPingPong(
  durationMs: number,
  message: unknown,
  mode: 'json' | 'bytes',
): Promise<PingPongRun> {
  const a = createSocket('udp4')
  const b = createSocket('udp4')
  await Promise.all([
    new Promise<void>((r) => a.bind(0, '127.0.0.1', () => r())),
    new Promise<void>((r) => b.bind(0, '127.0.0.1', () => r())),
  ])
  const aPort = a.address().port
  const bPort = b.address().port
  const bytes = Buffer.from(JSON.stringify(message))
  const json = mode === 'json'
  b.on('message', (msg) => {
    const reply = json ? Buffer.from(JSON.stringify(JSON.parse(msg.toString('utf8')))) : msg
    b.send(reply, aPort, '127.0.0.1')
  })
  const run = await loop(durationMs, (onPong) => {
    a.on('message', (msg) => {
      if (json) JSON.parse(msg.toString('utf8'))
      onPong()
    })
    return () => a.send(json ? Buffer.from(JSON.stringify(message)) : bytes, bPort, '127.0.0.1')
  })
  await Promise.all([
    new Promise<void>((r) => a.close(() => r())),
    new Promise<void>((r) => b.close(() => r())),
  ])
  return run
}

/** Minimal view of a transport, so this file does not depend on how it is built. */
export interface PingPongTransport {
  readonly self: string | number
  send(to: string | number, msg: unknown): void
  onMessage(handler: (from: string | number, msg: unknown) => void): () => void
}

/** Ping-pong between two transports: `b` answers every message of `a` with the same message. */
export async function transportPingPong(
  a: PingPongTransport,
  b: PingPongTransport,
  durationMs: number,
  message: unknown,
): Promise<PingPongRun> {
  const offB = b.onMessage((from, msg) => b.send(from, msg))
  let offA = () => {}
  const run = await loop(durationMs, (onPong) => {
    offA = a.onMessage(() => onPong())
    return () => a.send(b.self, message)
  })
  offA()
  offB()
  return run
}

/** Sends a ping, waits for its pong, repeats until `durationMs` has passed. */
function loop(durationMs: number, setup: (onPong: () => void) => () => void): Promise<PingPongRun> {
  return new Promise((resolve) => {
    const latenciesUs: number[] = []
    let roundTrips = 0
    let sentAt = 0
    const start = performance.now()
    const cpuStart = process.cpuUsage()
    const deadline = start + durationMs
    let send: () => void = () => {}
    const ping = () => {
      sentAt = performance.now()
      send()
    }
    let done = false
    const finish = (now: number) => {
      done = true
      clearTimeout(guard)
      const cpu = process.cpuUsage(cpuStart)
      resolve({
        roundTrips,
        elapsedMs: now - start,
        cpuMs: (cpu.user + cpu.system) / 1000,
        latenciesUs,
      })
    }
    // A lost datagram would stall an unreliable ping-pong forever: stop at the deadline regardless.
    const guard = setTimeout(() => finish(performance.now()), durationMs + 1000)
    send = setup(() => {
      if (done) return
      const now = performance.now()
      roundTrips++
      if (latenciesUs.length < maxLatencies) latenciesUs.push((now - sentAt) * 1000)
      if (now >= deadline) finish(now)
      else ping()
    })
    ping()
  })
}
