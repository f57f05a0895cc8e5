/**
 * A hostile member sends the mutual exclusion nodes random and malformed messages over many
 * seeds, while the honest nodes ask for the lock: no node throws, every certainly malformed
 * message is refused with an `ignored` event naming the sender, no honest message is refused, and
 * `checkMutualExclusion` finds no two honest nodes inside at once.
 *
 * The hostile node is two-faced: it runs the algorithm like an honest member (so the others can
 * enter at all) and sends its junk beside. Safety only, not liveness: a member may legitimately
 * hold everyone up, and a lie (a request it never releases) may well do so.
 */
import { createRandom, type NodeId, type ProtocolFactory } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import {
  emptyHostileLog,
  type HostilePeerLog,
  hostilePeer,
  twoFaced,
} from '../../../test-support/hostile-messages.js'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { centralized } from '../src/centralized/index.js'
import type { MutexRequest } from '../src/contract.js'
import { lamportMutex } from '../src/lamport/index.js'
import { maekawa } from '../src/maekawa/index.js'
import { quorumMutex } from '../src/quorum/index.js'
import { ricartAgrawala } from '../src/ricart-agrawala/index.js'
import { tokenRing } from '../src/token-ring/index.js'
import { type MutexRun, randomAsks, runMutex } from './support/harness.js'

const EVIL = 99
const R = 'default'

/** What the checks read of any algorithm's events: the type, and an `ignored`'s sender and reason. */
type HostileCaseEvent = { type: string; from?: NodeId; reason?: string }

interface Case {
  name: string
  honest: NodeId[]
  factory: ProtocolFactory<never, MutexRequest, HostileCaseEvent>
  /** Well-formed messages of the algorithm, as the hostile node could send them. */
  samples: unknown[]
  /**
   * Also run with well-formed lies (samples sent as is or with odd values), except where a
   * member's lie breaks mutual exclusion by design (a forged token, a vote given twice), so
   * checking safety against it means nothing.
   */
  lies: boolean
  /** Refusals of honest messages the algorithm makes without any hostile node. */
  staleRefusal?: RegExp
  /** The algorithm assumes FIFO channels. */
  fifo?: boolean
}

const coordinators = [1, 2, 3, 4, 5]

const CASES: Case[] = [
  {
    name: 'Ricart-Agrawala',
    honest: [1, 2, 3, 4],
    factory: ricartAgrawala(),
    samples: [
      { type: 'request', resource: R, time: 3 },
      { type: 'ok', resource: R, time: 4, req: 3 },
      { type: 'deny', resource: R, time: 4, req: 3 },
    ],
    lies: true,
  },
  {
    name: 'Lamport',
    honest: [1, 2, 3, 4],
    factory: lamportMutex(),
    samples: [
      { type: 'request', resource: R, time: 3 },
      { type: 'reply', resource: R, time: 4 },
      { type: 'release', resource: R, time: 5, req: 3 },
    ],
    lies: true,
    fifo: true,
  },
  {
    name: 'centralized',
    honest: [1, 2, 3, 4],
    factory: centralized({ coordinator: 1 }),
    samples: [
      { type: 'request', term: 0, resource: R, seq: 1, at: 10 },
      { type: 'grant', term: 0, epoch: 0, resource: R, seq: 1, token: 1, at: 10 },
      { type: 'denied', term: 0, resource: R, seq: 1 },
      { type: 'release', term: 0, resource: R, token: 1 },
      { type: 'renew', term: 0, resource: R, token: 1, at: 10 },
      { type: 'renewed', term: 0, resource: R, token: 1, at: 10 },
      { type: 'revoked', term: 0, resource: R, token: 1 },
      {
        type: 'sync',
        term: 0,
        epoch: 0,
        held: [{ resource: R, token: 1 }],
        wanted: [{ resource: R, seq: 1, at: 10 }],
      },
      { type: 'recover', term: 0, epoch: 0 },
      { type: 'newer', term: 1, coordinator: 1 },
      { type: 'query', term: 0, id: 'q' },
      {
        type: 'lock-state',
        term: 0,
        id: 'q',
        recovering: false,
        truncated: false,
        resources: [{ resource: R, holders: [{ node: 2, token: 1 }], queue: [{ node: 3 }] }],
      },
    ],
    lies: true,
  },
  {
    name: 'token ring',
    honest: [1, 2, 3, 4],
    factory: tokenRing({ holdMs: 2, ackTimeoutMs: 20 }),
    samples: [
      { type: 'token', pass: 1, generation: 0, count: 0, members: [1, 2, 3, 4, EVIL] },
      { type: 'ack', pass: 1 },
      { type: 'commit', pass: 1 },
      { type: 'regen', generation: 1, initiator: EVIL, live: [EVIL], hop: 1 },
      { type: 'regen-ack', hop: 1 },
    ],
    lies: false, // a member may forge a second token
  },
  {
    name: 'Maekawa',
    honest: [1, 2, 3, 4, 5, 6, 7, 8],
    factory: maekawa(),
    samples: ['request', 'locked', 'failed', 'inquire', 'relinquish', 'release'].map((type) => ({
      type,
      time: 4,
      req: 3,
      by: EVIL,
      ...(type === 'locked' || type === 'release' ? { fence: 0 } : {}),
    })),
    lies: false, // a member in two quorums may vote for both requesters
  },
  {
    // The hostile node is a client: a coordinator that lies grants twice, by design.
    name: 'quorum',
    honest: [...coordinators, 6, 7, 8],
    factory: quorumMutex({ coordinators, m: 3 }),
    samples: [
      { type: 'request', resource: R, session: 1, attempt: 1, token: 0 },
      { type: 'grant', resource: R, session: 1, attempt: 1, counter: 1 },
      { type: 'deny', resource: R, session: 1, attempt: 1 },
      { type: 'release', resource: R, session: 1, attempt: 1, token: 1 },
      { type: 'query', resource: R, session: 1, attempt: 1 },
    ],
    lies: true,
    staleRefusal: /not the grant held here/, // a late release of a superseded round
  },
]

/**
 * Each node refused all it got that was malformed, naming the hostile node. Without lies, every
 * refusal names it; a lie may make an honest message stale (a release of a term a forged message
 * ended), and refusing that is right.
 */
function expectRefusals(
  run: MutexRun<HostileCaseEvent>,
  log: HostilePeerLog,
  honest: readonly NodeId[],
  lies: boolean,
  staleRefusal: RegExp | undefined,
) {
  const ignored = run.events.filter(
    (e) =>
      e.node !== EVIL && e.event.type === 'ignored' && !staleRefusal?.test(String(e.event.reason)),
  )
  const fromEvil = ignored.filter((e) => e.event.from === EVIL)
  if (!lies)
    for (const { event } of ignored)
      expect(event, `an honest message refused: ${JSON.stringify(event)}`).toMatchObject({
        from: EVIL,
      })
  for (const id of honest) {
    const refused = fromEvil.filter((e) => e.node === id).length
    expect(refused, `refusals at ${id}`).toBeGreaterThanOrEqual(log.malformedTo.get(id) ?? 0)
  }
  return fromEvil.length
}

function check(c: Case, lies: boolean) {
  let refused = 0
  let entries = 0
  forSeeds(seedList(30), (seed) => {
    const log = emptyHostileLog()
    const rnd = createRandom(seed)
    const asks = randomAsks(c.honest, () => rnd.next(), 20, 400)
    const factory = (self: NodeId) =>
      self === EVIL
        ? twoFaced(
            c.factory(self),
            hostilePeer({ samples: c.samples, count: 80, everyMs: 5, log, malformedOnly: !lies }),
          )
        : c.factory(self)
    const run = runMutex([...c.honest, EVIL], factory, asks, {
      seed,
      net: { latency: { kind: 'uniform', min: 1, max: 10 }, fifo: c.fifo || seed % 2 === 0 },
      until: 3000,
    })
    expect(run.violations).toEqual([])
    refused += expectRefusals(run, log, c.honest, lies, c.staleRefusal)
    entries += run.entries
  })
  // The runs did something: messages were refused, and the lock was used.
  expect(refused).toBeGreaterThan(0)
  expect(entries).toBeGreaterThan(0)
}

describe('mutex under a hostile peer (random and malformed messages, many seeds)', () => {
  for (const c of CASES) {
    it(`${c.name}: malformed messages are refused, the honest nodes never hold the lock together`, () =>
      check(c, false))
    if (c.lies)
      it(`${c.name}: with well-formed lies too, the honest nodes never hold the lock together`, () =>
        check(c, true))
  }
})
