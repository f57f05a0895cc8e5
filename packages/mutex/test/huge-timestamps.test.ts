/**
 * A member stamping its messages with a huge Lamport time: the receivers adopt a peer's time, so
 * one such message could leave their clock no room to count (the next send throws inside a
 * handler) or their fencing tokens (T × 65536 + rank) past exact doubles. Both timestamp mutexes
 * refuse a time above MAX_PEER_TIME, reporting it as `ignored`, and nobody throws.
 */
import {
  type NodeId,
  type Protocol,
  type ProtocolFactory,
  SimNetwork,
  type TimedEvent,
} from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import type { MutexRequest } from '../src/contract.js'
import { type LamportMutexEvent, lamportMutex } from '../src/lamport/index.js'
import { MAX_PEER_TIME } from '../src/lamport/messages.js'
import { type RicartAgrawalaEvent, ricartAgrawala } from '../src/ricart-agrawala/index.js'

const HONEST: NodeId[] = [1, 2, 3]
const PUSHER = 99

/** A member that opens by sending every other member a request stamped `time`, then stays quiet. */
const pusher = (time: number): Protocol<unknown, unknown, never> => ({
  start(ctx) {
    for (const peer of HONEST) ctx.send(peer, { type: 'request', resource: 'r', time })
  },
  onMessage() {},
})

type MutexEvent = LamportMutexEvent | RicartAgrawalaEvent

function run(
  factory: ProtocolFactory<unknown, MutexRequest, MutexEvent>,
  time: number,
): TimedEvent<MutexEvent>[] {
  const net = new SimNetwork({ seed: 1, trace: false })
  const events: TimedEvent<MutexEvent>[] = []
  net.launch([...HONEST, PUSHER], (self) => (self === PUSHER ? pusher(time) : factory(self)), {
    onEmit: (node, event, t) => events.push({ node, t, event }),
  })
  // Each honest member asks after the push has arrived: their requests are sends too.
  for (const id of HONEST) net.request(id, { type: 'acquire', resource: 'r' }, 50)
  net.run({ until: 1_000 })
  return events
}

const algorithms: [string, ProtocolFactory<unknown, MutexRequest, MutexEvent>][] = [
  ['lamport', lamportMutex()],
  ['ricart-agrawala', ricartAgrawala()],
]

describe.each(algorithms)('%s under a huge peer time', (_name, factory) => {
  it.each([Number.MAX_SAFE_INTEGER, 2 ** 53 - 2, MAX_PEER_TIME + 1])(
    'refuses %d, and no member throws or loses its tokens',
    (time) => {
      const events = run(factory, time)
      const refused = ofType(events, 'ignored')
      expect(refused.map((e) => e.node).sort()).toEqual(HONEST)
      for (const { event } of refused) {
        expect(event.from).toBe(PUSHER)
        expect(event.reason).toMatch(/time/)
      }
      const tokens = ofType(events, 'requested').map((e) => e.event.token)
      expect(tokens).toHaveLength(HONEST.length)
      for (const token of tokens) expect(Number.isSafeInteger(token)).toBe(true)
    },
  )

  it('takes a time of exactly MAX_PEER_TIME: tokens stay exact, and only the pushed times are refused', () => {
    const events = run(factory, MAX_PEER_TIME)
    const requested = ofType(events, 'requested')
    expect(requested).toHaveLength(HONEST.length)
    for (const { event } of requested) {
      expect(event.time).toBeGreaterThan(MAX_PEER_TIME)
      expect(Number.isSafeInteger(event.token)).toBe(true)
    }
    // The cost of the bound: members pushed to it stamp above it, and refuse each other from then
    // on. The group stalls, as it does when a member stops answering; nobody crashes.
    const refused = ofType(events, 'ignored')
    expect(refused.length).toBeGreaterThan(0)
    for (const { event } of refused) {
      expect(HONEST.includes(event.from), String(event.from)).toBe(true)
      expect(event.reason).toMatch(/time/)
    }
  })
})
