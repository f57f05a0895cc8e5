import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterEach } from 'vitest'
import { pollUntil } from '../../../src/testing/index.js'
import type { TransportSignal } from '../../../src/transport.js'
import {
  createUdpTransport,
  type UdpStats,
  type UdpTransport,
  type UdpTransportOptions,
} from '../../../src/udp/index.js'

export * from './wire.js'
export { pollUntil }

export const LOOPBACK = '127.0.0.1'

// ---- resources that every test closes, even when it fails ----

const open: Array<() => Promise<unknown>> = []

/** Has `close` run after the test (with `closeEverythingAfterEach`), even when it fails. */
export function closeAfterTest(close: () => Promise<unknown>): void {
  open.push(close)
}

/** Registers an afterEach that closes every transport, proxy and socket the test opened. */
export function closeEverythingAfterEach(): void {
  afterEach(async () => {
    const closers = open.splice(0).reverse()
    await Promise.allSettled(closers.map((close) => close()))
  })
}

/** A transport on loopback, closed at once (nothing graceful) after the test. */
export async function node<Msg = unknown>(
  options: UdpTransportOptions<Msg>,
): Promise<UdpTransport<Msg>> {
  const t = await createUdpTransport<Msg>(options)
  open.push(() => t.close({ graceful: false }))
  return t
}

/** Two transports that know each other directly. */
export async function pair<Msg = unknown>(options: Partial<UdpTransportOptions<Msg>> = {}) {
  const a = await node<Msg>({ id: 'a', ...options })
  const b = await node<Msg>({ id: 'b', ...options })
  a.setPeer('b', `${LOOPBACK}:${b.address.port}`)
  b.setPeer('a', `${LOOPBACK}:${a.address.port}`)
  return { a, b }
}

export function inbox<Msg>(t: UdpTransport<Msg>): Msg[] {
  const got: Msg[] = []
  t.onMessage((_from, msg) => got.push(msg))
  return got
}

export function signalsOf(t: UdpTransport<unknown>): TransportSignal[] {
  const got: TransportSignal[] = []
  t.onSignal((s) => got.push(s))
  return got
}

export function unreachable(signals: TransportSignal[]): TransportSignal[] {
  return signals.filter((s) => s.type === 'peer-unreachable')
}

/** Drop reasons whose counters moved between two snapshots, with how much: for failure messages. */
export function droppedBetween(before: UdpStats, after: UdpStats): Record<string, number> {
  const moved: Record<string, number> = {}
  for (const [reason, n] of Object.entries(after.dropped)) {
    const d = n - before.dropped[reason as keyof UdpStats['dropped']]
    if (d !== 0) moved[reason] = d
  }
  return moved
}

// ---- heap ----

let forcedGc: (() => void) | undefined

/** Bytes the process holds for JavaScript after a full GC: the heap plus Buffer backing stores. */
export async function heldBytes(): Promise<number> {
  if (forcedGc === undefined) {
    setFlagsFromString('--expose-gc')
    forcedGc = runInNewContext('gc') as () => void
  }
  // A few rounds, with pauses between, so finalizers run and freed Buffer memory is swept.
  for (let i = 0; i < 4; i++) {
    forcedGc()
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const m = process.memoryUsage()
  return m.heapUsed + m.external
}

export const MB = 1024 * 1024

/** Resolves with `promise`, or rejects after `ms` (a bound against hanging, not a timing assertion). */
export async function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([promise, limit])
  } finally {
    clearTimeout(timer)
  }
}
