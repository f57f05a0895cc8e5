import { createRandom, type NodeId, type Random } from '@sd/transport'
import { checkSnapshots, runInSim, type SnapshotInput } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { seedList } from '../../../test-support/seeds.js'
import {
  expectSoundSnapshots,
  recordingSnapshots,
  text,
} from '../../../test-support/snapshot-contract.js'
import { heartbeatSettings, LeaderWatch } from '../src/detector/heartbeat.js'
import { phiAccrual } from '../src/detector/phi-watch.js'
import type { MemberUpdate } from '../src/detector/swim/members.js'
import type { SwimMessage } from '../src/detector/swim/messages.js'
import { type SwimRequest, swim } from '../src/detector/swim/protocol.js'
import { stubCtx } from './support/stub-ctx.js'

const OPTIONS = { periodMs: 100, probeTimeoutMs: 20 }

describe('SWIM snapshots', () => {
  it('are plain, unshared and deterministic in simulated runs with crashes and pauses', () => {
    const ids: NodeId[] = [1, 2, 3, 4, 5]
    const run = (seed: number) => {
      const rnd = createRandom(`swim-snapshots/${seed}`)
      const rec = recordingSnapshots(swim(OPTIONS))
      runInSim(ids, rec.factory, {
        seed,
        net: { latency: { kind: 'uniform', min: 1, max: 10 }, loss: 0.05, trace: false },
        until: 3000,
        plan: (net) => {
          const victim = ids[rnd.int(0, 4)]!
          net.at(rnd.int(500, 1500), () => net.pause(victim))
          net.at(1700, () => net.resume(victim))
          net.at(2000, () => net.crash(ids[rnd.int(0, 4)]!))
        },
      })
      return rec
    }
    expectSoundSnapshots(seedList(15), run)
  })

  it('are complete and canonical (checkSnapshots over random messages and timers)', () => {
    type Input = SnapshotInput<SwimMessage, SwimRequest>
    const update = (random: Random, peers: readonly NodeId[]): MemberUpdate => ({
      kind: (['alive', 'suspect', 'dead', 'left'] as const)[random.int(0, 3)]!,
      node: [1, ...peers][random.int(0, peers.length)]!,
      incarnation: random.int(0, 2),
      from: peers[random.int(0, peers.length - 1)]!,
    })
    const inputs = (
      random: Random,
      at: { peers: readonly NodeId[]; timers: readonly string[] },
    ): Input => {
      // Timers often: the probe order is state only a later probe tells apart.
      if (at.timers.length > 0 && random.int(0, 1) === 0) {
        return { kind: 'timer', key: at.timers[random.int(0, at.timers.length - 1)]! }
      }
      const from = at.peers[random.int(0, at.peers.length - 1)]!
      const updates = random.int(0, 1) === 0 ? [] : [update(random, at.peers)]
      const seq = random.int(0, 3)
      const kind = random.int(0, 7)
      if (kind === 6) return { kind: 'request', req: { type: 'leave' } }
      if (kind === 7) {
        const entry = {
          node: at.peers[random.int(0, at.peers.length - 1)]!,
          state: 'alive' as const,
          incarnation: 0,
        }
        return {
          kind: 'message',
          from,
          msg: {
            type: 'welcome',
            members: [entry, { node: 1, state: 'dead', incarnation: random.int(0, 1) }],
          },
        }
      }
      // Membership: a join (also from a stranger, 9), a welcome, news of a leave or a stranger.
      if (kind === 4)
        return {
          kind: 'message',
          from: random.int(0, 1) === 0 ? 9 : from,
          msg: { type: 'join', incarnation: random.int(0, 1) },
        }
      if (kind === 5) {
        const node = [9, ...at.peers][random.int(0, at.peers.length)]!
        const state = (['alive', 'dead', 'left'] as const)[random.int(0, 2)]!
        const u = { kind: state, node, incarnation: random.int(0, 2), from }
        return { kind: 'message', from, msg: { type: 'ping', seq, updates: [u] } }
      }
      const msg: SwimMessage =
        kind === 0
          ? { type: 'ping', seq, updates }
          : kind === 1
            ? { type: 'ack', seq, updates }
            : kind === 2
              ? { type: 'ping-req', seq, target: at.peers[0]!, updates }
              : { type: 'nack', seq, updates }
      return { kind: 'message', from, msg }
    }
    // A member of a group, and a process joining through seed 2 (welcomes, leaves, strangers).
    for (const factory of [swim(OPTIONS), swim({ ...OPTIONS, seeds: [2], tombstonePeriods: 2 })]) {
      const report = checkSnapshots(factory, {
        seeds: 20,
        inputs,
        peers: [2, 3, 4],
        continuations: 8,
      })
      expect(report.states).toBeGreaterThan(1000)
      expect(report.comparedPairs).toBeGreaterThan(0)
    }
  })
})

describe('phi accrual snapshots', () => {
  it('the watch lists its peers sorted, whatever order they were first heard in', () => {
    const snapshotAfter = (order: NodeId[]) => {
      const watch = phiAccrual()
      const ctx = stubCtx(1, [2, 3, 'x'])
      for (const node of order) watch.heard(node, ctx)
      return text(watch.snapshot())
    }
    expect(snapshotAfter([3, 'x', 2])).toBe(snapshotAfter(['x', 2, 3]))
  })

  it('a leader watch with phi has its history in the snapshot; with the timeout, as before', () => {
    const ctx = stubCtx(1, [2])
    const timeout = new LeaderWatch(heartbeatSettings())
    timeout.follow(ctx)
    expect(timeout.snapshot()).toEqual({ leading: false })
    const phi = new LeaderWatch(heartbeatSettings({ detector: { phi: {} } }))
    phi.follow(ctx)
    const before = text(phi.snapshot())
    ctx.clock = 100
    phi.heard(ctx)
    expect(text(phi.snapshot())).not.toBe(before)
  })
})
