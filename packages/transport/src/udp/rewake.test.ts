/**
 * The engine moves its wake-up later when the deadline that set it goes away (`rewake`), so a
 * held acknowledgement that rode on data costs no timer wake-up. Two engines wired by hand,
 * virtual time only.
 */
import { describe, expect, it } from 'vitest'
import type { NodeId } from '../ids.js'
import { REWAKE_SCAN_LINKS } from './engine/transmit.js'
import { LinkEngine } from './engine.js'
import { resolveOptions } from './options.js'

interface Wakes {
  /** Every deadline asked with `wake` or `rewake`, in order, as [kind, at]. */
  calls: Array<['wake' | 'rewake', number]>
}

/** Engines 'a' and 'b'; datagrams go straight across when `carry` is called. */
function pair(options: { rewake: boolean; extraPeers?: number }) {
  const resolved = resolveOptions({ id: 'x', maxAckDelayMs: 5 })
  const inFlight = new Map<NodeId, Buffer[]>([
    ['a', []],
    ['b', []],
  ])
  const wakes = new Map<NodeId, Wakes>()
  const engines = new Map<NodeId, LinkEngine>()
  let draws = 0
  for (const self of ['a', 'b'] as const) {
    const peer = self === 'a' ? 'b' : 'a'
    const mine: Wakes = { calls: [] }
    wakes.set(self, mine)
    const engine = new LinkEngine(
      self,
      resolved,
      undefined,
      {
        transmit: (address, datagram) => inFlight.get(address.host)?.push(datagram),
        deliver: () => true,
        signal: () => {},
        dropped: () => {},
        wake: (at) => mine.calls.push(['wake', at]),
        ...(options.rewake ? { rewake: (at: number) => mine.calls.push(['rewake', at]) } : {}),
        flushSoon: () => {},
      },
      { u32: () => 1000 + ++draws, unit: () => 0 },
    )
    engine.setPeer(peer, { host: peer, port: 1 })
    for (let i = 0; i < (options.extraPeers ?? 0); i++)
      engine.setPeer(`idle-${i}`, { host: `idle-${i}`, port: 1 })
    engines.set(self, engine)
  }
  const carry = (to: NodeId, now: number) => {
    for (const datagram of inFlight.get(to)!.splice(0)) engines.get(to)!.receive(datagram, now)
    engines.get(to)!.flush(now)
  }
  // Handshake and a first message, acknowledged: a quiet, established link at time 100.
  engines.get('a')!.send('b', Buffer.from('warm-up'), 0)
  for (let t = 1; t < 100; t++) {
    carry('b', t)
    carry('a', t)
    for (const engine of engines.values()) engine.onTimer(t)
  }
  expect(engines.get('a')!.unacknowledged()).toBe(0)
  for (const w of wakes.values()) w.calls.length = 0
  return { engines, wakes, carry }
}

/** b gets a request at 100 and answers it at 101: its held acknowledgement rides on the answer. */
function requestAndAnswer(p: ReturnType<typeof pair>) {
  p.engines.get('a')!.send('b', Buffer.from('request'), 100)
  p.carry('b', 100) // b owes an acknowledgement, held until 105
  expect(p.wakes.get('b')!.calls).toEqual([['wake', 105]])
  p.engines.get('b')!.send('a', Buffer.from('answer'), 101) // carries it
  return p.wakes.get('b')!.calls
}

describe('moving the wake-up later (rewake)', () => {
  it('moves the wake-up of a held acknowledgement that rode on data to the next deadline', () => {
    const calls = requestAndAnswer(pair({ rewake: true }))
    // Left at 105, the timer would fire for nothing; it moves to the answer's probe timeout.
    expect(calls.length).toBe(2)
    expect(calls[1]![0]).toBe('rewake')
    expect(calls[1]![1]).toBeGreaterThan(105)
  })

  it('drops the wake-up once nothing is left to wait for', () => {
    const p = pair({ rewake: true })
    p.engines.get('a')!.send('b', Buffer.from('one-way'), 100) // a: a probe timeout to wait for
    p.carry('b', 100)
    p.engines.get('b')!.onTimer(105) // nothing to ride on: the acknowledgement goes alone
    p.carry('a', 105) // a: acknowledged, nothing in flight, nothing owed
    const a = p.wakes.get('a')!.calls
    expect(a[0]![0]).toBe('wake')
    expect(a.at(-1)).toEqual(['rewake', Number.POSITIVE_INFINITY])
  })

  it('leaves the wake-up where it was for a sink without rewake (the simulator)', () => {
    const calls = requestAndAnswer(pair({ rewake: false }))
    expect(calls).toEqual([['wake', 105]])
  })

  it('leaves the wake-up where it was with an address book beyond the scan bound', () => {
    const calls = requestAndAnswer(pair({ rewake: true, extraPeers: REWAKE_SCAN_LINKS }))
    expect(calls).toEqual([['wake', 105]])
  })
})
