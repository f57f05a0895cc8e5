import type { NodeId, Random } from '@sd/transport'
import { checkSnapshots, runInSim, type SnapshotInput } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { seedList } from '../../../test-support/seeds.js'
import {
  expectSoundSnapshots,
  recordingSnapshots,
} from '../../../test-support/snapshot-contract.js'
import {
  type CmhGraphMsg,
  type CmhGraphRequest,
  type CmhGraphSnapshot,
  cmhOnGraph,
} from '../src/detect/cmh-graph.js'

const SEEDS = seedList(40).length

/** 1 waits for 2 and 3; 2 for 3; 3 for 1 (two cycles through 1), 4 for nobody. */
const waitsFor = new Map<NodeId, NodeId[]>([
  [1, [2, 3]],
  [2, [3]],
  [3, [1]],
  [4, []],
])

const pick = <T>(random: Random, items: readonly T[]): T => items[random.int(0, items.length - 1)]!

/** Probes of a few initiators (1 itself among them), initiations, and now and then new waits. */
function inputs(
  random: Random,
  at: { self: NodeId; peers: readonly NodeId[] },
): SnapshotInput<CmhGraphMsg, CmhGraphRequest> {
  const roll = random.int(0, 9)
  if (roll === 0) return { kind: 'request', req: { type: 'initiate' } }
  if (roll === 1) {
    // Waits in either order: the order probes go out in is state.
    const waits = at.peers.filter(() => random.int(0, 1) === 1)
    return { kind: 'request', req: { type: 'set-waits', waitsFor: waits } }
  }
  const from = pick(random, at.peers)
  const initiator = pick(random, [at.self, ...at.peers])
  return {
    kind: 'message',
    from,
    msg: { type: 'probe', initiator, sender: from, receiver: at.self, path: [initiator, from] },
  }
}

describe('cmhOnGraph snapshot() and restore()', () => {
  it(`pass checkSnapshots over random inputs (${SEEDS} seeds): complete, canonical, restorable`, () => {
    for (const recordPath of [true, false]) {
      const report = checkSnapshots(cmhOnGraph({ waitsFor, recordPath }), {
        seeds: SEEDS,
        self: 1,
        peers: [2, 3, 4],
        inputs,
      })
      expect(report.comparedPairs).toBeGreaterThan(0)
      expect(report.restored).toBe(report.states)
    }
  })

  it('are plain, unshared and deterministic in simulated runs of the spec graph', () => {
    const run = (seed: number) => {
      const rec = recordingSnapshots(cmhOnGraph({ waitsFor }))
      runInSim([1, 2, 3, 4], rec.factory, {
        seed,
        net: { latency: { kind: 'uniform', min: 1, max: 20 }, fifo: false, trace: false },
        plan: (_net, group) => {
          for (const id of [1, 2, 3, 4]) group.request(id, { type: 'initiate' }, seed % 7)
        },
      })
      return rec
    }
    expectSoundSnapshots(seedList(20), run)
  })

  it('forwarded initiators come out sorted; waits keep their order', () => {
    const ctx = silentCtx()
    const a = cmhOnGraph({ waitsFor })(2)
    const b = cmhOnGraph({ waitsFor })(2)
    const probe = (initiator: NodeId): CmhGraphMsg => ({
      type: 'probe',
      initiator,
      sender: 1,
      receiver: 2,
      path: [initiator],
    })
    a.onMessage(1, probe(3), ctx)
    a.onMessage(1, probe(1), ctx)
    b.onMessage(1, probe(1), ctx)
    b.onMessage(1, probe(3), ctx)
    expect(a.snapshot!()).toEqual(b.snapshot!())
    expect((a.snapshot!() as CmhGraphSnapshot).forwarded).toEqual([1, 3])
    a.onRequest!({ type: 'set-waits', waitsFor: [3, 1] }, ctx)
    b.onRequest!({ type: 'set-waits', waitsFor: [1, 3] }, ctx)
    expect(a.snapshot!()).not.toEqual(b.snapshot!())
  })

  it('restore() keeps no reference to the snapshot it was given', () => {
    const a = cmhOnGraph({ waitsFor })(1)
    const snap = a.snapshot!() as CmhGraphSnapshot
    const b = cmhOnGraph({ waitsFor })(4)
    b.restore!(snap)
    snap.waits.push(4)
    snap.forwarded.push(2)
    expect(b.snapshot!()).toEqual({ waits: [2, 3], forwarded: [], declared: false })
  })
})

/** A ctx that drops every effect: enough to move a state by hand. */
function silentCtx() {
  return {
    self: 2,
    peers: [1, 3, 4],
    now: () => 0,
    monotonic: () => 0,
    random: () => 0,
    send() {},
    broadcast() {},
    setTimer() {},
    cancelTimer() {},
    emit() {},
    storage: { get: () => undefined, set() {}, delete() {}, keys: () => [] },
  }
}
