import { InvalidArgumentError } from '@sd/transport'
import { ofType, runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { Gossip } from '../src/detector/swim/gossip.js'
import { MemberList } from '../src/detector/swim/members.js'
import { MAX_INCARNATION, parseMessage } from '../src/detector/swim/messages.js'
import { resolveOptions } from '../src/detector/swim/options.js'
import { swim } from '../src/detector/swim/protocol.js'
import { suspicionBounds, suspicionTimeout } from '../src/detector/swim/suspicion.js'

describe('SWIM options', () => {
  it('defaults, and each wrong value refused with its name', () => {
    const s = resolveOptions()
    expect(s).toMatchObject({ periodMs: 200, probeTimeoutMs: 60, indirectChecks: 3 })
    expect(s).toMatchObject({ localHealth: true, dynamicSuspicion: true, buddy: true, nacks: true })
    const plain = resolveOptions({ lifeguard: false })
    expect(plain).toMatchObject({ localHealth: false, dynamicSuspicion: false, buddy: false })
    expect(resolveOptions({ lifeguard: { localHealth: false } }).dynamicSuspicion).toBe(true)
    expect(() => resolveOptions({ periodMs: 0 })).toThrow(InvalidArgumentError)
    expect(() => resolveOptions({ periodMs: 100, probeTimeoutMs: 100 })).toThrow(/under periodMs/)
    expect(() => resolveOptions({ indirectChecks: 1.5 })).toThrow(/indirectChecks/)
    expect(() => resolveOptions({ suspicionMaxMult: 0.5 })).toThrow(/suspicionMaxMult/)
    expect(() => resolveOptions({ lifeguard: 'yes' as never })).toThrow(/lifeguard/)
  })
})

describe("Lifeguard's dynamic suspicion timeout", () => {
  it('starts at the max, reaches the min at k confirmations, never below', () => {
    // 10 members, period 100, mult 4: min 400 ms, max 6 x 400, k = 2.
    const b = suspicionBounds(10, 100, 4, 6, true)
    expect(b).toEqual({ minMs: 400, maxMs: 2400, k: 2 })
    expect(suspicionTimeout(b, 0)).toBe(2400)
    // log(2) / log(3) of the way down after one confirmation.
    expect(suspicionTimeout(b, 1)).toBe(Math.floor(2400 - (Math.log(2) / Math.log(3)) * 2000))
    expect(suspicionTimeout(b, 2)).toBe(400)
    expect(suspicionTimeout(b, 9)).toBe(400)
  })

  it('fixed at the min without it, and when nobody else could confirm', () => {
    expect(suspicionTimeout(suspicionBounds(10, 100, 4, 6, false), 0)).toBe(400)
    expect(suspicionBounds(2, 100, 4, 6, true).k).toBe(0)
    expect(suspicionTimeout(suspicionBounds(2, 100, 4, 6, true), 0)).toBe(400)
  })
})

describe('the member list: incarnations order the news', () => {
  it('suspect, confirm, refute, die; old news is stale', () => {
    const m = new MemberList([2, 3])
    expect(m.apply({ kind: 'suspect', node: 2, incarnation: 0, from: 3 })).toEqual({
      before: 'alive',
    })
    expect(m.apply({ kind: 'suspect', node: 2, incarnation: 0, from: 1 })).toBe('confirm')
    expect(m.apply({ kind: 'alive', node: 2, incarnation: 0, from: 2 })).toBe('stale')
    expect(m.apply({ kind: 'alive', node: 2, incarnation: 1, from: 2 })).toEqual({
      before: 'suspect',
    })
    expect(m.apply({ kind: 'suspect', node: 2, incarnation: 0, from: 3 })).toBe('stale')
    expect(m.apply({ kind: 'dead', node: 2, incarnation: 1, from: 3 })).toEqual({ before: 'alive' })
    expect(m.apply({ kind: 'suspect', node: 2, incarnation: 5, from: 3 })).toBe('stale')
    expect(m.apply({ kind: 'alive', node: 2, incarnation: 2, from: 2 })).toEqual({ before: 'dead' })
    expect(m.apply({ kind: 'dead', node: 9, incarnation: 0, from: 3 })).toBe('stale')
    expect(m.live()).toEqual([2, 3])
  })
})

describe('gossip: bounded retransmission', () => {
  it('each update goes out `limit` times, the least sent first, at most `max` a message', () => {
    const g = new Gossip()
    g.add({ kind: 'suspect', node: 2, incarnation: 0, from: 1 })
    g.add({ kind: 'alive', node: 3, incarnation: 1, from: 3 })
    expect(g.take(1, 2).map((u) => u.node)).toEqual([2])
    expect(g.take(1, 2).map((u) => u.node)).toEqual([3])
    expect(g.take(5, 2).map((u) => u.node)).toEqual([2, 3])
    expect(g.take(5, 2)).toEqual([])
    // A newer update about a member replaces the old one and starts over.
    g.add({ kind: 'dead', node: 2, incarnation: 0, from: 1 })
    expect(g.take(5, 2, { kind: 'suspect', node: 4, incarnation: 0, from: 1 })).toHaveLength(2)
  })
})

describe('SWIM messages from peers are checked', () => {
  it('refuses malformed messages and incarnations past 2^52', () => {
    expect(parseMessage({ type: 'ping', seq: 1, updates: [] })).toEqual({
      type: 'ping',
      seq: 1,
      updates: [],
    })
    expect(parseMessage({ type: 'ping', seq: -1, updates: [] })).toMatch(/malformed ping: seq/)
    const bad = { kind: 'alive', node: 2, incarnation: MAX_INCARNATION + 2, from: 2 }
    expect(parseMessage({ type: 'ack', seq: 1, updates: [bad] })).toMatch(/malformed ack/)
    expect(parseMessage({ type: 'ack', seq: 1, updates: Array(65).fill(bad) })).toMatch(/updates/)
    expect(parseMessage({ type: 'hello' })).toMatch(/unknown message type/)
  })

  it('a node reports what it drops, and what a non-member sends', () => {
    const { events } = runInSim([1, 2], swim(), {
      seed: 1,
      until: 10,
      plan: (net) => {
        net.addNode('intruder')
        net.at(1, () => net.transport('intruder').send(1, { type: 'ping', seq: 1, updates: [] }))
        net.at(2, () => net.transport('intruder').send(1, { type: 'ping' }))
      },
    })
    expect(ofType(events, 'ignored').map((e) => e.event.reason)).toEqual([
      'not a member',
      'malformed ping: seq',
    ])
  })
})
