/**
 * A hostile member sends the election nodes (bully, ring, Chang-Roberts, YoYo, majority) malformed messages over many seeds, while elections
 * run: no node throws, every certainly malformed message is refused with an `ignored` event naming
 * the sender, and `checkElection` finds no two honest leaders in one term, nor a term going back.
 *
 * Only certainly malformed messages: a well-formed lie is a legitimate claim in these algorithms
 * (a bully COORDINATOR, a ring ELECTED, a majority vote given twice), so safety against it means
 * nothing. The hostile node is two-faced: it also runs the algorithm honestly, so elections end.
 * Safety only, not liveness. Honest messages may be refused too (bully refuses an election from a
 * better candidate), so refusals are counted, not required to name the hostile node.
 */
import { isRecord, type NodeId, type ProtocolFactory } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { emptyHostileLog, hostilePeer, twoFaced } from '../../../test-support/hostile-messages.js'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { bully } from '../src/bully/index.js'
import { changRoberts } from '../src/chang-roberts/protocol.js'
import { checkElection } from '../src/check.js'
import type { ElectionRequest } from '../src/contract.js'
import { eventFields } from '../src/event-fields.js'
import { majorityElection } from '../src/majority/protocol.js'
import { ringElection } from '../src/ring/protocol.js'
import { yoyo } from '../src/yoyo/index.js'
import { runElection } from './support/harness.js'

// The worst candidate, so the honest nodes win the elections the hostile one takes part in:
// the lowest id, but for YoYo, which elects the minimum.
const EVIL_DEFAULT = 0
const HONEST = [1, 2, 3, 4, 5]
const YOYO_EVIL = 9

interface Case {
  name: string
  factory: ProtocolFactory<unknown, ElectionRequest, unknown>
  samples: unknown[]
  /** The hostile node's id (default EVIL_DEFAULT). */
  evil?: NodeId
}
const any = (f: unknown) => f as ProtocolFactory<unknown, ElectionRequest, unknown>

const CASES: Case[] = [
  {
    name: 'bully',
    factory: any(bully()),
    samples: ['election', 'ok', 'coordinator', 'heartbeat', 'resign', 'newer'].map((type) => ({
      type,
      term: 3,
    })),
  },
  {
    name: 'ring',
    factory: any(ringElection()),
    samples: [
      { type: 'election', list: [EVIL_DEFAULT, 1], out: [], max: 2, round: 1 },
      {
        type: 'coordinator',
        leader: EVIL_DEFAULT,
        term: 3,
        members: [1, EVIL_DEFAULT],
        closer: EVIL_DEFAULT,
        hops: 1,
      },
      { type: 'ack', hop: 1 },
      { type: 'heartbeat', term: 3 },
      { type: 'resign', term: 3 },
      { type: 'leader-is', leader: EVIL_DEFAULT, term: 3 },
    ],
  },
  {
    name: 'Chang-Roberts',
    factory: any(changRoberts()),
    samples: [
      { type: 'election', candidate: EVIL_DEFAULT, max: 2 },
      { type: 'elected', leader: EVIL_DEFAULT, term: 3 },
      { type: 'heartbeat', term: 3 },
      { type: 'resign', term: 3 },
      { type: 'leader-is', leader: EVIL_DEFAULT, term: 3 },
    ],
  },
  {
    name: 'YoYo',
    factory: any(yoyo({ neighbors: (id) => [...HONEST, YOYO_EVIL].filter((x) => x !== id) })),
    samples: [
      { type: 'setup' },
      { type: 'yo', iteration: 1, value: 1 },
      { type: 'vote', iteration: 1, yes: true, prune: false },
      { type: 'leader', leader: 1, term: 1 },
    ],
    evil: YOYO_EVIL,
  },
  {
    name: 'majority',
    factory: any(majorityElection()),
    samples: [
      { type: 'pre-vote', term: 3 },
      { type: 'pre-vote-reply', term: 3, granted: true, known: 2 },
      { type: 'vote', term: 3, at: 10 },
      { type: 'vote-reply', term: 3, granted: true, at: 10, known: 2 },
      { type: 'leader', term: 3, at: 10 },
      { type: 'heartbeat', term: 3, at: 10 },
      { type: 'ack', term: 3, at: 10 },
      { type: 'stale', term: 3 },
      { type: 'resign', term: 3 },
    ],
  },
]

describe('election under a hostile peer (malformed messages, many seeds)', () => {
  for (const c of CASES) {
    it(`${c.name}: malformed messages are refused, the honest nodes never split a term`, () => {
      let refused = 0
      let leaders = 0 // honest leaders the honest nodes learned of
      const EVIL = c.evil ?? EVIL_DEFAULT
      forSeeds(seedList(30), (seed) => {
        const log = emptyHostileLog()
        const factory = (self: NodeId) =>
          self === EVIL
            ? twoFaced(
                c.factory(self),
                hostilePeer({
                  samples: c.samples,
                  count: 80,
                  everyMs: 5,
                  log,
                  malformedOnly: true,
                }),
              )
            : c.factory(self)
        const run = runElection([...HONEST, EVIL], factory, {
          seed,
          net: { latency: { kind: 'uniform', min: 1, max: 10 } },
          until: 2000,
          plan: (net) => {
            net.request(1 + (seed % HONEST.length), { type: 'start' })
            net.request(1 + ((seed + 2) % HONEST.length), { type: 'start' }, 300)
          },
        })
        const honest = run.events.filter((e) => e.node !== EVIL)
        const verdict = checkElection(honest)
        expect(verdict.violations).toEqual([])
        const fromEvil = honest.filter((e) => {
          const event = e.event
          return isRecord(event) && event.type === 'ignored' && event.from === EVIL
        })
        for (const id of HONEST) {
          const at = fromEvil.filter((e) => e.node === id).length
          expect(at, `refusals at ${id}`).toBeGreaterThanOrEqual(log.malformedTo.get(id) ?? 0)
        }
        refused += fromEvil.length
        leaders += honest.filter((e) => {
          const event = eventFields(e.event)
          return event?.type === 'leader' && event.leader !== EVIL
        }).length
      })
      expect(refused).toBeGreaterThan(0)
      expect(leaders).toBeGreaterThan(0)
    })
  }
})
