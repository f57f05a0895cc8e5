import { compose, type NodeId, type Protocol, SimNetwork } from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { type CentralizedEvent, centralized } from '../src/centralized/index.js'
import { checkMutualExclusion, type TimedEvent } from '../src/check.js'

// A stand-in for an election: told who leads, it announces the leader with a higher term.
type LeaderEvent = { type: 'leader'; leader: NodeId; term: number }
const election = (): Protocol<never, LeaderEvent, LeaderEvent> => ({
  onMessage() {},
  onRequest: (req, ctx) => ctx.emit(req),
})

const node = () =>
  compose(
    { election: election(), lock: centralized({ coordinator: 1, leaseMs: 40, maxDelayMs: 20 })(0) },
    {
      wiring: [
        {
          from: 'election',
          to: 'lock',
          map: (ev) => ({ type: 'coordinator', id: ev.leader, term: ev.term }),
        },
      ],
    },
  )

describe('centralized: composed with an election', () => {
  it('moves to the leader an election announces, through wiring, and stays safe', () => {
    const net = new SimNetwork({ seed: 4, latency: { kind: 'uniform', min: 1, max: 5 } })
    const ids = [1, 2, 3, 4]
    const lockEvents: TimedEvent<CentralizedEvent>[] = []
    const cluster = net.launch(ids, node, {
      onEmit: (id, e, t) => {
        if (e.proto === 'lock') lockEvents.push({ node: id, t, event: e.event })
      },
    })
    const acquire = (id: NodeId, at: number) =>
      cluster.request(id, { proto: 'lock', req: { type: 'acquire' } }, at)
    const release = (id: NodeId, at: number) =>
      cluster.request(id, { proto: 'lock', req: { type: 'release' } }, at)
    acquire(2, 0)
    release(2, 150) // after node 4 recovered (at 35 + 40 + 20: node 1 is down)
    acquire(3, 10)
    release(3, 300)
    net.at(30, () => net.crash(1))
    net.at(35, () => {
      for (const id of [2, 3, 4]) {
        cluster.request(id, { proto: 'election', req: { type: 'leader', leader: 4, term: 1 } })
      }
    })
    net.run({ until: 400 })
    const entries = ofType(lockEvents, 'acquired')
    expect(entries.map((e) => [e.node, e.event.token])).toEqual([
      [2, 1],
      [3, 2 ** 32 + 1],
    ])
    expect(checkMutualExclusion(lockEvents, [{ node: 1, t: 30 }]).violations).toEqual([])
    // Node 3 entered only after node 2 released: node 2 told node 4 it held the lock.
    const released2 = lockEvents.find((e) => e.node === 2 && e.event.type === 'released')!
    expect(entries[1]!.t).toBeGreaterThan(released2.t)
    const recovered = lockEvents.find((e) => e.event.type === 'recovered')!
    expect([recovered.node, recovered.t]).toEqual([4, 95])
    expect(ofType(lockEvents, 'lease-lost')).toEqual([])
    expect(ofType(lockEvents, 'coordinator-changed')).toHaveLength(3)
  })
})
