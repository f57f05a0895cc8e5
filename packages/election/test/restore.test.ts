/**
 * The elections' restore(): checkSnapshots restores every state it reaches into a fresh instance
 * (not started) and runs it beside the original, on requests, timers (heartbeats, silences,
 * elections) and peers' messages from a small domain of terms, so that leading, following and
 * electing states all come back. With phi accrual there is no restore (its history cannot be given
 * back to the watch).
 */
import type { NodeId, ProtocolFactory, Random } from '@sd/transport'
import { InvalidArgumentError } from '@sd/transport'
import { checkSnapshots, type SnapshotInput } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { bully } from '../src/bully/index.js'
import { changRoberts } from '../src/chang-roberts/index.js'
import { ringElection } from '../src/ring/index.js'
import { yoyo } from '../src/yoyo/index.js'

type Any = SnapshotInput<never, unknown>
type At = { self: NodeId; peers: readonly NodeId[]; timers: readonly string[] }
type Messages = (random: Random, from: NodeId, at: At) => object[]

const pick = <T>(random: Random, xs: readonly T[]): T => xs[random.int(0, xs.length - 1)]!

/** A request now and then, timers often (they drive every election), else a peer's message. */
const inputsOf =
  (messages: Messages) =>
  (random: Random, at: At): Any => {
    const roll = random.int(0, 9)
    if (roll === 0) return { kind: 'request', req: { type: pick(random, ['start', 'resign']) } }
    if (roll <= 4 && at.timers.length > 0) return { kind: 'timer', key: pick(random, at.timers) }
    const from = pick(random, at.peers)
    return { kind: 'message', from, msg: pick(random, messages(random, from, at)) as never }
  }

const bullyMessages: Messages = (random) => {
  const term = random.int(0, 6) // node 1 owns 1 and 4, node 2 owns 2 and 5, node 3 owns 3 and 6
  return ['election', 'ok', 'coordinator', 'heartbeat', 'resign', 'newer'].map((type) => ({
    type,
    term,
  }))
}

const ringMessages: Messages = (random, from, at) => {
  const term = random.int(0, 3)
  const hop = random.int(1, 3)
  const all = [at.self, ...at.peers]
  return [
    { type: 'election', hop, list: [from], out: [], max: term, round: random.int(1, 2) },
    {
      type: 'coordinator',
      hop,
      leader: pick(random, all),
      term,
      members: random.int(0, 1) === 0 ? all : [from, at.self],
      closer: from,
      hops: random.int(0, 2),
    },
    { type: 'ack', hop },
    { type: 'heartbeat', term },
    { type: 'resign', term },
    { type: 'leader-is', leader: pick(random, all), term },
  ]
}

const changRobertsMessages: Messages = (random, from, at) => {
  const term = random.int(0, 3)
  const all = [at.self, ...at.peers]
  return [
    { type: 'election', candidate: pick(random, all), max: term },
    { type: 'elected', leader: pick(random, all), term },
    { type: 'heartbeat', term },
    { type: 'resign', term },
    { type: 'leader-is', leader: from, term },
  ]
}

const CASES: Array<[string, () => unknown, Messages]> = [
  ['bully', () => bully({ okTimeoutMs: 50, coordinatorTimeoutMs: 80 }), bullyMessages],
  [
    'bully (trustDetector)',
    () => bully({ okTimeoutMs: 50, coordinatorTimeoutMs: 80, trustDetector: true }),
    bullyMessages,
  ],
  ['ring', () => ringElection(), ringMessages],
  ['chang-roberts', () => changRoberts(), changRobertsMessages],
  [
    'chang-roberts (every member starts)',
    () => changRoberts({ startAll: true }),
    changRobertsMessages,
  ],
]

describe('elections: restore() (checkSnapshots restores every state reached)', () => {
  for (const [name, factory, messages] of CASES) {
    it(name, () => {
      const report = checkSnapshots(factory() as ProtocolFactory<never, unknown>, {
        seeds: 10,
        inputs: inputsOf(messages),
      })
      expect(report.restored).toBe(report.states)
      expect(report.restored).toBeGreaterThan(500)
      expect(report.comparedPairs).toBeGreaterThan(0)
    })
  }

  it.each([
    [1, 'a source'],
    [2, 'one in-edge, two out-edges'],
  ])('yoyo (node %s of a complete graph of 4: %s)', (self) => {
    const members: NodeId[] = [1, 2, 3, 4]
    const factory = yoyo({ neighbors: (id) => members.filter((m) => m !== id) })
    const inputs = (random: Random, at: At): Any => {
      const from = pick(random, at.peers)
      const iteration = random.int(1, 2)
      const msgs = [
        { type: 'setup' },
        { type: 'yo', iteration, value: pick(random, members) },
        { type: 'vote', iteration, yes: random.int(0, 1) === 1, prune: random.int(0, 2) === 0 },
        { type: 'leader', leader: pick(random, members), term: random.int(1, 2) },
      ]
      return { kind: 'message', from, msg: pick(random, msgs) as never }
    }
    const report = checkSnapshots(factory as ProtocolFactory<never, unknown>, {
      seeds: 10,
      inputs,
      self,
      peers: members.filter((m) => m !== self),
    })
    expect(report.restored).toBe(report.states)
    expect(report.restored).toBeGreaterThan(500)
    expect(() => factory(2).restore?.({ graph: [] })).toThrow(InvalidArgumentError)
  })

  it('no restore() with phi accrual; a snapshot of another shape is refused', () => {
    const phi = { heartbeat: { detector: { phi: {} } } }
    expect(bully(phi)(1).restore).toBeUndefined()
    expect(ringElection(phi)(1).restore).toBeUndefined()
    expect(changRoberts(phi)(1).restore).toBeUndefined()
    for (const node of [bully()(1), ringElection()(1), changRoberts()(1)]) {
      expect(() => node.restore?.({ leader: null })).toThrow(InvalidArgumentError)
      expect(() => node.restore?.(7)).toThrow(/restore\(\) takes the object snapshot\(\) gave/)
    }
  })
})
