/**
 * A hostile site sends the resource manager's sites random and malformed messages over many
 * seeds, while random lock workloads run under each deadlock strategy: no site throws, every
 * certainly malformed message is refused with an `ignored` event naming the sender, no honest
 * message is refused, and the judge of the run (`checkDeadlocks`) finds no phantom deadlock and
 * no unreported victim.
 */
import type { NodeId, ProtocolFactory } from '@sd/transport'
import { ofType, runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { emptyHostileLog, hostilePeer } from '../../../test-support/hostile-messages.js'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { checkDeadlocks } from '../src/check.js'
import type { DeadlockRequest } from '../src/contract.js'
import {
  type CmhGraphEvent,
  type CmhGraphMsg,
  type CmhGraphRequest,
  cmhOnGraph,
} from '../src/detect/cmh-graph.js'
import {
  type ManagerEvent,
  type ManagerMessage,
  type ResourceManagerOptions,
  resourceManager,
} from '../src/manager/index.js'
import { randomWorkload } from './support/workload.js'

const EVIL = 99
const STRATEGIES: ResourceManagerOptions['strategy'][] = [
  { kind: 'chandy-misra-haas' },
  { kind: 'centralized', coordinator: 1, periodMs: 15 },
  { kind: 'prevention', rule: 'wound-wait' },
]

/** Well-formed messages of the manager, about the hostile site's own made-up process. */
function samplesFor(resource: string): unknown[] {
  const proc = { id: 'evil-p', home: EVIL, timestamp: 5 }
  const entry = { ref: proc, req: 1, resource, heldReq: -1 }
  const lock = { process: 'evil-p', resource, req: 1 }
  const wait = { from: proc, to: { ...proc, id: 'evil-q' }, resource, id: 'w1' }
  return [
    { type: 'lock-request', proc, resource, req: 1 },
    { type: 'lock-grant', ...lock },
    { type: 'lock-blocked', ...lock, holder: proc, seq: 1 },
    { type: 'lock-die', ...lock },
    { type: 'lock-release', ...lock },
    { type: 'wound', ...lock },
    {
      type: 'probe',
      initiator: 'evil-p',
      computation: 1,
      sender: 'evil-p',
      receiver: 'p1',
      resource,
      path: [entry],
    },
    { type: 'verify', path: [entry, { ...entry, req: 2 }], index: 1 },
    { type: 'abort', process: 'evil-p' },
    { type: 'collect', round: 1 },
    { type: 'local-waits', round: 1, waits: [wait] },
    { type: 'confirm', round: 1, ids: ['w1'] },
    { type: 'confirmed', round: 1, present: ['w1'] },
  ]
}

describe('deadlock under a hostile peer (random and malformed messages, many seeds)', () => {
  it('the resource manager refuses what does not fit, and its runs stay sound', () => {
    let refusedTotal = 0
    forSeeds(seedList(50), (seed) => {
      const workload = randomWorkload(seed)
      const strategy = STRATEGIES[seed % STRATEGIES.length]!
      const log = emptyHostileLog()
      const honest = resourceManager({ ...workload, strategy })
      const samples = samplesFor(Object.keys(workload.resources)[0]!)
      const factory: ProtocolFactory<ManagerMessage, DeadlockRequest, ManagerEvent> = (self) =>
        self === EVIL ? hostilePeer({ samples, count: 80, everyMs: 2, log }) : honest(self)
      const { events } = runInSim([...workload.sites, EVIL], factory, {
        seed,
        net: { latency: { kind: 'uniform', min: 1, max: 6 }, fifo: false },
        until: 2000,
      })

      const ignored = ofType(events, 'ignored')
      for (const { event } of ignored)
        expect(event, 'an honest message refused').toMatchObject({ from: EVIL })
      for (const id of workload.sites) {
        const refused = ignored.filter((e) => e.node === id).length
        expect(refused, `refusals at ${id}`).toBeGreaterThanOrEqual(log.malformedTo.get(id) ?? 0)
      }
      refusedTotal += ignored.length
      const verdict = checkDeadlocks(events)
      expect(verdict.phantoms).toEqual([])
      expect(verdict.unreportedVictims).toEqual([])
      // In detection mode only victims are aborted, and they never finish (prevention restarts).
      if (strategy.kind !== 'prevention')
        for (const p of verdict.aborted) expect(verdict.finished.has(p)).toBe(false)
    })
    expect(refusedTotal).toBeGreaterThan(50 * 40)
  })

  it('Chandy-Misra-Haas on a graph refuses what is not a probe', () => {
    forSeeds(seedList(50), (seed) => {
      const log = emptyHostileLog()
      const waitsFor = new Map<NodeId, NodeId[]>([
        [1, [2]],
        [2, [3]],
        [3, [1]],
      ])
      const honest = cmhOnGraph({ waitsFor })
      const probe = { type: 'probe', initiator: EVIL, sender: EVIL, receiver: 1, path: [EVIL] }
      const factory: ProtocolFactory<CmhGraphMsg, CmhGraphRequest, CmhGraphEvent> = (self) =>
        self === EVIL ? hostilePeer({ samples: [probe], count: 60, everyMs: 1, log }) : honest(self)
      const { events } = runInSim([1, 2, 3, EVIL], factory, {
        seed,
        plan: (_net, group) => group.request(1, { type: 'initiate' }),
        until: 500,
      })
      const ignored = ofType(events, 'ignored')
      for (const { event } of ignored) expect(event.from).toBe(EVIL)
      for (const id of [1, 2, 3])
        expect(ignored.filter((e) => e.node === id).length).toBeGreaterThanOrEqual(
          log.malformedTo.get(id) ?? 0,
        )
      // The real cycle is still found by its initiator.
      expect(events.map(({ node, event }) => ({ node, event }))).toContainEqual({
        node: 1,
        event: { type: 'deadlock', cycle: [1, 2, 3], victim: 3 },
      })
    })
  })
})
