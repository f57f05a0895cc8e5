/**
 * `centralized()`'s restore(): checkSnapshots restores every state it reaches into a fresh
 * instance and runs it beside the original. The inputs reach both roles (node 1 coordinates term 0;
 * term 1 may move the coordinator to node 2), views, steals, leases and lock-delays.
 */
import type { NodeId, ProtocolFactory, Random } from '@sd/transport'
import { InvalidArgumentError } from '@sd/transport'
import { checkSnapshots, type SnapshotInput } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { centralized } from '../src/centralized/index.js'
import { TOKENS_PER_TERM } from '../src/centralized/options.js'

type Any = SnapshotInput<never, unknown>
type At = { self: NodeId; peers: readonly NodeId[]; timers: readonly string[] }

const pick = <T>(random: Random, xs: readonly T[]): T => xs[random.int(0, xs.length - 1)]!

/** How an acquire or a request holds: exclusive, shared, permits, and the two flags. */
const wants = [{}, { mode: 'shared' }, { permits: { take: 1, of: 2 } }, { ifAvailable: true }]
const stealing = [...wants, { steal: true }]

/** Inputs from a small domain, so that walks meet: terms 0 and 1, three tokens and seqs each. */
function inputs(random: Random, at: At): Any {
  const term = random.int(0, 1)
  const resource = pick(random, ['default', 'x'])
  const token = term * TOKENS_PER_TERM + random.int(1, 3)
  // A client's seqs start above its incarnation's base (boots 1).
  const seq = TOKENS_PER_TERM + random.int(1, 3)
  const roll = random.int(0, 19)
  if (roll <= 2)
    return { kind: 'request', req: { type: 'acquire', resource, ...pick(random, stealing) } }
  if (roll === 3) return { kind: 'request', req: { type: 'release', resource } }
  if (roll === 4) {
    const id = term === 0 ? at.self : pick(random, [at.self, at.peers[0]!])
    const reqs = [
      { type: 'coordinator', id, term },
      { type: 'coordinator-lost', term },
      { type: 'coordinator-lease', term, until: random.int(0, 1) === 0 ? 0 : 100 },
      { type: 'query', id: random.int(1, 2) },
      {
        type: 'view',
        view: random.int(1, 2),
        members: random.int(0, 2) === 0 ? at.peers : [at.self, ...at.peers.slice(0, 1)],
      },
    ]
    return { kind: 'request', req: pick(random, reqs) }
  }
  if (roll <= 7 && at.timers.length > 0) return { kind: 'timer', key: pick(random, at.timers) }
  const from = pick(random, at.peers)
  const epoch = random.int(0, 2)
  const view = random.int(0, 2)
  const v = view === 0 ? {} : { view }
  const time = random.int(0, 2) * 20
  const msgs = [
    // To the coordinator.
    { type: 'request', term, resource, seq: random.int(1, 3), at: time, ...pick(random, stealing) },
    { type: 'release', term, resource, token, ...pick(random, wants.slice(0, 3)) },
    { type: 'renew', term, resource, token, at: time },
    { type: 'stolen-ack', term, resource, token },
    {
      type: 'sync',
      term,
      epoch,
      held: random.int(0, 1) === 0 ? [] : [{ resource, token }],
      wanted: random.int(0, 1) === 0 ? [] : [{ resource, seq: random.int(1, 3), at: time }],
      ...v,
    },
    // To the client.
    { type: 'grant', term, epoch, resource, seq, token, at: time },
    { type: 'grant', term, epoch, resource, seq, token, at: time, burst: 3 },
    { type: 'denied', term, resource, seq },
    { type: 'refused', term, resource, seq, reason: 'unavailable', limit: 0 },
    { type: 'renewed', term, resource, token, at: time },
    { type: 'revoked', term, resource, token },
    { type: 'stolen', term, resource, token, seq },
    { type: 'recover', term, epoch, ...v },
    { type: 'newer', term, coordinator: from },
  ]
  return { kind: 'message', from, msg: pick(random, msgs) as never }
}

const CASES = [
  { name: 'queue, no leases', options: {} },
  { name: 'deny, leases', options: { whenBusy: 'deny', leaseMs: 40, maxDelayMs: 20 } },
  {
    name: 'leases, lock-delay, leader leases, readers-first',
    options: {
      leaseMs: 40,
      maxDelayMs: 20,
      lockDelayMs: 10,
      leaderLease: true,
      readers: 'readers-first',
    },
  },
  { name: 'burst, leases', options: { burst: 3, leaseMs: 40, maxDelayMs: 20 } },
] as const

describe('centralized(): restore() (checkSnapshots restores every state reached)', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const factory = centralized(c.options) as unknown as ProtocolFactory<never, unknown>
      const report = checkSnapshots(factory, { seeds: 8, inputs, steps: 16 })
      expect(report.restored).toBe(report.states)
      expect(report.restored).toBeGreaterThan(500)
      expect(report.comparedPairs).toBeGreaterThan(0)
    })
  }

  it('refuses a snapshot of another shape with InvalidArgumentError', () => {
    const node = centralized()('a')
    expect(() => node.restore?.({ term: 0 })).toThrow(InvalidArgumentError)
    expect(() => node.restore?.([])).toThrow(/restore\(\) takes the object snapshot\(\) gave/)
    expect(() => node.restore?.(null)).toThrow(InvalidArgumentError)
  })
})
