/**
 * Our elections in a worker: a UDP transport (`@sd/transport/udp`, default options: reliable, no
 * key) bound to this node's address, and `createElection` running `bully({ heartbeat })` or
 * `majorityElection({ heartbeat })` on it, with the heartbeat at node-discover's hello interval and
 * node timeout.
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
  if (spec.contender === 'bully') return bully({ heartbeat }) as unknown as AnyFactory
  if (spec.contender === 'majority') return majorityElection({ heartbeat }) as unknown as AnyFactory
  throw new Error(`not ours: ${spec.contender}`)
}

const leaderOf = (e: Election<unknown>) => {
  const leader = e.leader()
  return leader === undefined ? null : String(leader)
}

export const oursNode: NodeMaker = async (spec, report) => {
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
      const look = () => report({ leader: leaderOf(e), self: e.isLeader(), term: e.term() })
      e.onLeaderChange(look)
      look()
    },
    async close() {
      await election?.close()
      await transport.close({ graceful: false })
    },
  }
  return node
}
