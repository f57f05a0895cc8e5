/**
 * Runs of a timestamp mutex through view changes: members acquire and release at random, one
 * crashes and a view without it reaches every live member at its own time, then a joiner is
 * launched and a view with it goes round. Judged across all nodes by `checkMutualExclusion`.
 */
import { createRandom, type NodeId, type ProtocolFactory, SimNetwork } from '@sd/transport'
import { checkMutualExclusion, type MutexVerdict, type TimedEvent } from '../../src/check.js'
import type { MutexRequest, ViewRequest } from '../../src/contract.js'
import { JITTER } from './harness.js'

export type ViewedFactory = ProtocolFactory<unknown, MutexRequest | ViewRequest, { type: string }>

export const MEMBERS: NodeId[] = ['a', 'b', 'c', 'd']
export const JOINER: NodeId = 'e'

export interface ViewRun extends MutexVerdict {
  net: SimNetwork
  events: TimedEvent<{ type: string }>[]
  victim: NodeId
  /** Acquires asked of each node while it was up, and `acquired` events it emitted. */
  asked: Map<NodeId, number>
  served: Map<NodeId, number>
}

/** Sends `view` to `node` as its local request (what a membership service does). */
export function sendView(
  net: SimNetwork,
  node: NodeId,
  view: number,
  members: NodeId[],
  at?: number,
) {
  net.request<ViewRequest>(node, { type: 'view', view, members }, at)
}

export function runThroughViews(factory: ViewedFactory, seed: number): ViewRun {
  const random = createRandom(seed)
  const pick = (n: number) => Math.floor(random.next() * n)
  const net = new SimNetwork({ seed, ...JITTER })
  const events: TimedEvent<{ type: string }>[] = []
  const asked = new Map<NodeId, number>()
  const served = new Map<NodeId, number>()
  const holds = new Map<NodeId, number[]>()
  net.onEmit((node, event, t) => {
    const e = event as { type: string }
    events.push({ node, t, event: e })
    if (e.type !== 'acquired') return
    served.set(node, (served.get(node) ?? 0) + 1)
    const hold = holds.get(node)?.shift() ?? 1
    net.request<MutexRequest>(node, { type: 'release' }, t + hold)
  })
  net.launch(MEMBERS, factory)
  net.addNode(JOINER) // known to the network from the start; its protocol runs from joinAt

  const ask = (node: NodeId, at: number) =>
    net.at(at, () => {
      if (net.isCrashed(node)) return
      asked.set(node, (asked.get(node) ?? 0) + 1)
      holds.set(node, [...(holds.get(node) ?? []), 1 + pick(5)])
      net.request<MutexRequest>(node, { type: 'acquire' })
    })
  for (let i = 0; i < 24; i++) ask(MEMBERS[pick(MEMBERS.length)]!, pick(500))

  const victim = MEMBERS[pick(MEMBERS.length)]!
  const alive = MEMBERS.filter((m) => m !== victim)
  const changeAt = 50 + pick(100)
  net.at(changeAt, () => net.crash(victim))
  for (const m of alive) sendView(net, m, 1, alive, changeAt + 1 + pick(60))

  // A joiner: launched alone, then given view 2 (every member gets it at its own time).
  const joinAt = 250 + pick(50)
  net.at(joinAt, () => net.launch([JOINER], factory))
  const withJoiner = [...alive, JOINER]
  for (const m of withJoiner) sendView(net, m, 2, withJoiner, joinAt + 1 + pick(40))
  for (let i = 0; i < 4; i++) ask(JOINER, joinAt + 50 + pick(200))
  net.run({ until: 5000 })

  const faults = net.trace.flatMap((e) => (e.type === 'crash' ? [{ node: e.node, t: e.t }] : []))
  return { ...checkMutualExclusion(events, faults), net, events, victim, asked, served }
}
