/**
 * The wire as an outsider sees it, for the defect regression tests: a capture proxy that reads
 * datagrams, an attacker socket, floods, and forged HELLOs, data and acks. The only file here
 * that knows the wire format: a format change touches this file alone.
 */
import { createSocket, type Socket } from 'node:dgram'
import { Worker } from 'node:worker_threads'
import type { NodeId } from '../../../src/ids.js'
import { pollUntil } from '../../../src/testing/index.js'
import { Authenticator } from '../../../src/udp/auth.js'
import type { UdpStats } from '../../../src/udp/index.js'
import type { FragmentInfo } from '../../../src/udp/wire/header.js'
import {
  decodeDatagram,
  encodeDatagram,
  encodeIdField,
  MAC_BYTES,
  type OutgoingHeader,
  PacketType,
} from '../../../src/udp/wire/header.js'
import { bounded, closeAfterTest, LOOPBACK } from './support.js'

// ---- sockets of the test itself ----

export type Kind = 'data' | 'ack' | 'unreliable' | 'hello' | 'hello-reply'

const KINDS: Record<number, Kind> = {
  [PacketType.Data]: 'data',
  [PacketType.Ack]: 'ack',
  [PacketType.Unreliable]: 'unreliable',
  [PacketType.Hello]: 'hello',
  [PacketType.HelloReply]: 'hello-reply',
}

/** One datagram seen on the wire, with the header fields the tests need. */
export interface Sniffed {
  bytes: Buffer
  kind: Kind
  from: NodeId
  to: NodeId
  /** Sender's and addressed incarnations, packet number. */
  srcInc: number
  dstInc: number
  pn: number
  /** Data: sequence number. */
  seq: number
  /** Data and Ack: packet numbers acknowledged, as ranges (highest first). */
  ack: number[] | undefined
}

/** Reads a datagram we saw; undefined for anything that is not a well-formed datagram. */
export function sniff(bytes: Buffer): Sniffed | undefined {
  const d = decodeDatagram(bytes)
  if (typeof d === 'string') return undefined
  return {
    bytes: Buffer.from(bytes),
    kind: KINDS[d.type]!,
    from: d.from,
    to: d.to,
    srcInc: d.srcInc,
    dstInc: d.dstInc,
    pn: d.pn,
    seq: d.seq,
    ack: d.ack,
  }
}

async function bindLoopback(): Promise<Socket> {
  const socket = createSocket('udp4')
  await new Promise<void>((resolve) => socket.bind(0, LOOPBACK, () => resolve()))
  socket.on('error', () => {}) // ICMP port unreachable and the like: loss, as for the adapter
  return socket
}

function closeSocket(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    try {
      socket.close(() => resolve())
    } catch {
      resolve() // already closed
    }
  })
}

/**
 * A UDP forwarder that records what passes: A's address book points B at `portForA`,
 * B's points A at `portForB`. Datagrams are forwarded unchanged and in order, except those from B
 * that `holdFromB` picks, which wait (in order) for `release()`.
 */
export class CaptureProxy {
  readonly aToB: Sniffed[] = []
  readonly bToA: Sniffed[] = []
  holdFromB: ((s: Sniffed) => boolean) | undefined
  private readonly held: Buffer[] = []

  private constructor(
    private readonly facingA: Socket,
    private readonly facingB: Socket,
    private readonly aPort: number,
    bPort: number,
  ) {
    facingA.on('message', (msg) => {
      this.record(this.aToB, msg)
      facingB.send(msg, bPort, LOOPBACK)
    })
    facingB.on('message', (msg) => {
      const seen = this.record(this.bToA, msg)
      if (seen && this.holdFromB?.(seen)) this.held.push(msg)
      else facingA.send(msg, aPort, LOOPBACK)
    })
  }

  static async start(aPort: number, bPort: number): Promise<CaptureProxy> {
    const proxy = new CaptureProxy(await bindLoopback(), await bindLoopback(), aPort, bPort)
    closeAfterTest(() => proxy.close())
    return proxy
  }

  /** Where A sends to reach B. */
  get portForA(): number {
    return this.facingA.address().port
  }

  /** Where B sends to reach A. */
  get portForB(): number {
    return this.facingB.address().port
  }

  /** Stops holding, and forwards what was held. */
  release(): void {
    this.holdFromB = undefined
    for (const msg of this.held.splice(0)) this.facingA.send(msg, this.aPort, LOOPBACK)
  }

  private record(log: Sniffed[], msg: Buffer): Sniffed | undefined {
    const seen = sniff(msg)
    if (seen) log.push(seen)
    return seen
  }

  async close(): Promise<void> {
    await Promise.all([closeSocket(this.facingA), closeSocket(this.facingB)])
  }
}

/** A bare socket of the test's own: sends crafted or replayed datagrams and records what it gets. */
export class Attacker {
  readonly received: Sniffed[] = []
  /** Whether what arrives is kept in `received` (off for long floods: their answers would pile up). */
  recording = true

  private constructor(private readonly socket: Socket) {
    socket.on('message', (msg) => {
      const seen = this.recording ? sniff(msg) : undefined
      if (seen) this.received.push(seen)
    })
  }

  static async open(): Promise<Attacker> {
    const attacker = new Attacker(await bindLoopback())
    closeAfterTest(() => attacker.close())
    return attacker
  }

  get port(): number {
    return this.socket.address().port
  }

  send(bytes: Uint8Array, port: number): void {
    this.socket.send(bytes, port, LOOPBACK)
  }

  close(): Promise<void> {
    return closeSocket(this.socket)
  }
}

/**
 * Worker code: cycles through `datagrams` toward `port` at about `perMs` per millisecond, sleeping
 * a tenth of a millisecond between rounds, until told to stop or `max` are sent. A thread of its
 * own keeps the stream smooth whatever the test's event loop is doing (timers there tick at 1 ms).
 */
const FLOOD_WORKER = `
const { workerData } = require('node:worker_threads')
const dgram = require('node:dgram')
const { datagrams, port, host, perMs, max, control } = workerData
const flags = new Int32Array(control) // [0] stop, [1] sent
const socket = dgram.createSocket('udp4')
socket.on('error', () => {})
socket.bind(0, host, () => socket.connect(port, host, run))
async function run() {
  const start = performance.now()
  let sent = 0
  while (Atomics.load(flags, 0) === 0 && sent < max) {
    const due = Math.min(max, Math.floor((performance.now() - start) * perMs))
    for (let burst = 0; sent < due && burst < 64; burst++) socket.send(datagrams[sent++ % datagrams.length])
    Atomics.store(flags, 1, sent)
    Atomics.wait(flags, 0, 0, 0.1)
    await new Promise((resolve) => setImmediate(resolve))
  }
  socket.close()
}
`

/** A flood from another thread; `stop()` resolves with the number of datagrams sent. */
export function flood(
  datagrams: Uint8Array[],
  port: number,
  limits: { perMs: number; max: number },
): { stop(): Promise<number> } {
  const control = new SharedArrayBuffer(8)
  const flags = new Int32Array(control)
  const worker = new Worker(FLOOD_WORKER, {
    eval: true,
    workerData: { datagrams, port, host: LOOPBACK, ...limits, control },
  })
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
  worker.on('error', () => {}) // a failed flood shows up as too few datagrams at the receiver
  const stop = async () => {
    Atomics.store(flags, 0, 1)
    Atomics.notify(flags, 0)
    await bounded(exited, 10_000, 'the flood worker').catch(() => worker.terminate())
    return Atomics.load(flags, 1)
  }
  closeAfterTest(stop)
  return { stop }
}

/**
 * Sends `count` datagrams, never more than `window` ahead of what `receiver` has read off its
 * socket, so its kernel buffer cannot overflow (loopback loses nothing then).
 */
export async function sendPaced(
  attacker: Attacker,
  port: number,
  count: number,
  datagram: (i: number) => Uint8Array,
  receiver: { readonly stats: UdpStats },
  window = 128,
): Promise<void> {
  const base = receiver.stats.datagramsReceived
  for (let i = 0; i < count; ) {
    const end = Math.min(count, i + window)
    while (i < end) attacker.send(datagram(i++), port)
    await pollUntil(
      () => receiver.stats.datagramsReceived - base >= end,
      `the receiver to read ${end} of ${count} datagrams`,
      60_000,
    )
  }
}

// ---- forged datagrams ----

/** Who a forged datagram claims to be from and to, and the key when the forger holds it. */
export interface Claim {
  from: NodeId
  to: NodeId
  key?: string
}

function seal(claim: Claim, h: OutgoingHeader, payload?: Uint8Array): Buffer {
  const buf = encodeDatagram(h, payload, claim.key === undefined ? 0 : MAC_BYTES)
  if (claim.key !== undefined) new Authenticator(claim.key).sign(buf)
  return buf
}

function header(claim: Claim, type: PacketType, f: { srcInc: number; dstInc: number; pn: number }) {
  return {
    type,
    srcInc: f.srcInc,
    dstInc: f.dstInc,
    pn: f.pn,
    srcIdField: encodeIdField(claim.from),
    dstIdField: encodeIdField(claim.to),
  }
}

/** A handshake challenge. */
export function forgeHello(
  claim: Claim,
  f: { srcInc: number; dstInc: number; pn: number; nonce: number },
): Buffer {
  return seal(claim, { ...header(claim, PacketType.Hello, f), nonce: f.nonce })
}

/** A reliable data datagram carrying one fragment (base 0: never asks the receiver to skip). */
export function forgeDataFragment(
  claim: Claim,
  f: { srcInc: number; dstInc: number; pn: number; seq: number; frag: FragmentInfo },
  payload: Uint8Array,
): Buffer {
  return seal(
    claim,
    { ...header(claim, PacketType.Data, f), seq: f.seq, base: 0, frag: f.frag },
    payload,
  )
}

/**
 * A reliable data datagram: `base` (default 0) is the sender's oldest unacknowledged seq,
 * `bundle` marks the payload as several messages behind u16 lengths (see `bundlePayload`).
 */
export function forgeData(
  claim: Claim,
  f: { srcInc: number; dstInc: number; pn: number; seq: number; base?: number; bundle?: boolean },
  payload: Uint8Array,
): Buffer {
  return seal(
    claim,
    {
      ...header(claim, PacketType.Data, f),
      seq: f.seq,
      base: f.base ?? 0,
      bundle: f.bundle === true,
    },
    payload,
  )
}

/** An acknowledgement naming `ranges` ([hi0, lo0, hi1, lo1, ...], highest first) of the target's packet numbers. */
export function forgeAck(
  claim: Claim,
  f: { srcInc: number; dstInc: number; pn: number; ranges: number[] },
): Buffer {
  return seal(claim, { ...header(claim, PacketType.Ack, f), ack: f.ranges })
}

/** A bundle payload: each message behind its u16 length, as the wire carries several messages in one datagram. */
export function bundlePayload(messages: Uint8Array[]): Buffer {
  const out = Buffer.alloc(messages.reduce((sum, m) => sum + 2 + m.length, 0))
  let at = 0
  for (const m of messages) {
    out.writeUInt16BE(m.length, at)
    out.set(m, at + 2)
    at += 2 + m.length
  }
  return out
}

/**
 * A fragment as the receive path hands it to the reassembler: the payload is a view into the
 * datagram it arrived in (so it keeps that datagram's memory alive, as on a real socket).
 */
export function receivedFragment(
  frag: FragmentInfo,
  payloadBytes: number,
): { frag: FragmentInfo; payload: Uint8Array } {
  // Built by hand: the decoder itself refuses an empty fragment, and this reaches past it to the
  // reassembler, with the payload a view into a datagram-sized buffer as on a real socket.
  const datagram = new Uint8Array(64 + payloadBytes)
  return { frag, payload: datagram.subarray(64, 64 + payloadBytes) }
}

/**
 * Learns `target`'s incarnation the way an outsider would: a HELLO claiming to be `claim.from`
 * (whose address in the target's book must be the attacker's), and the answer's source incarnation.
 */
export async function learnIncarnation(
  attacker: Attacker,
  targetPort: number,
  claim: Claim,
  asIncarnation: number,
): Promise<number> {
  const nonce = 0x5eed
  attacker.send(forgeHello(claim, { srcInc: asIncarnation, dstInc: 0, pn: 0, nonce }), targetPort)
  const isAnswer = (s: Sniffed) => s.kind === 'hello-reply' && s.dstInc === asIncarnation
  await pollUntil(() => attacker.received.some(isAnswer), 'an answer to our HELLO', 30_000)
  return attacker.received.find(isAnswer)!.srcInc
}
