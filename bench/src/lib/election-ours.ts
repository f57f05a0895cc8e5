/**
 * Our elections in a worker: a UDP transport (`@sd/transport/udp`, default options: reliable, no
 * key) bound to this node's address, and `createElection` running `bully({ heartbeat })` or
 * `majorityElection({ heartbeat })` on it, with the heartbeat at node-discover's hello interval and
 * node timeout; `bully-phi` adds the phi accrual detector (and trustDetector), `majority-no-prevote`
 * turns PreVote off.
 */
import { bully, createElection, type Election, majorityElection } from '@sd/election'
import type { ProtocolFactory } from '@sd/transport'
import { createUdpTransport } from '@sd/transport/udp'
import type { ElectionNode, NodeMaker } from './election-node.js'
import type { NodeSpec } from './election-protocol.js'

// The two algorithms carry different messages; the transport only sees JSON.
type AnyFactory = ProtocolFactory<unknown, never, unknown>

function algorithmOf(spec: NodeSpec): AnyFactory {
  const heartbeat = {
    intervalMs: spec.settings.helloIntervalMs,
    timeoutMs: spec.settings.nodeTimeoutMs,
  }
  switch (spec.contender) {
    case 'bully':
      return bully({ heartbeat }) as unknown as AnyFactory
    case 'bully-phi': {
      const { heartbeatIntervalMs, trustDetector, ...phi } = spec.settings.phi
      return bully({
        heartbeat: {
          intervalMs: heartbeatIntervalMs,
          timeoutMs: heartbeat.timeoutMs,
          detector: { phi },
        },
        trustDetector,
      }) as unknown as AnyFactory
    }
    case 'majority':
      return majorityElection({ heartbeat }) as unknown as AnyFactory
    case 'majority-no-prevote':
      return majorityElection({ heartbeat, preVote: false }) as unknown as AnyFactory
  }
  throw new Error(`not ours: ${spec.contender}`)
}

/** The events a failover's breakdown is made of (the bully's and the majority mode's). */
const marked = new Set(['leader-lost', 'election-started', 'candidate', 'ok', 'leader'])

const leaderOf = (e: Election<unknown>) => {
  const leader = e.leader()
  return leader === undefined ? null : String(leader)
}

export const oursNode: NodeMaker = async (spec, report, mark) => {
  const algorithm = algorithmOf(spec)
  const transport = await createUdpTransport<unknown>({
    id: spec.id,
    bind: { host: spec.host, port: 0 },
  })
  let election: Election<unknown> | undefined
  const node: ElectionNode = {
    port: transport.address.port,
    start(peers) {
      for (const [id, address] of Object.entries(peers)) transport.setPeer(id, address)
      report({ leader: null, self: false, term: 0 })
      election = createElection({ transport, algorithm, members: spec.members })
      const e = election
      // Every event too, not only a change of leader: a candidacy (its term) is a view of its own
      // (the rejoin figure counts terms); an unchanged view is not reported again.
      let last = ''
      let stood: number | undefined
      const look = () => {
        const view = { leader: leaderOf(e), self: e.isLeader(), term: e.term(), stood }
        const key = JSON.stringify(view)
        if (key === last) return
        last = key
        report(view)
      }
      e.onLeaderChange(look)
      e.onEvent((event) => {
        const { type, term, leader } = event as { type?: string; term?: number; leader?: unknown }
        if (type === 'candidate' && term !== undefined) stood = Math.max(stood ?? 0, term)
        if (type !== undefined && marked.has(type)) {
          mark(leader === undefined ? { type } : { type, leader: String(leader) })
        }
        look()
      })
      look()
    },
    async close() {
      await election?.close()
      await transport.close({ graceful: false })
    },
  }
  return node
}
