import assert from 'node:assert/strict'
import {
  type CausalEvent,
  type CausalMessage,
  causalBroadcast,
  type NodeId,
  type ProtocolContext,
} from '@sd/clocks'

// The protocols are pure: embed them in any loop. Here a tiny one that holds messages in a
// list, so we can deliver them in the worst order. (On @sd/transport, pass causalBroadcast
// to SimNetwork.launch or runProtocol instead.)
const ids = ['a', 'b', 'c']
const inFlight: { from: NodeId; to: NodeId; msg: CausalMessage<string> }[] = []
const delivered: Record<string, string[]> = { a: [], b: [], c: [] }
const ctx = (self: string): ProtocolContext<CausalMessage<string>, CausalEvent<string>> => ({
  self,
  peers: ids.filter((id) => id !== self),
  now: () => 0,
  send: (to, msg) => inFlight.push({ from: self, to, msg }),
  broadcast(msg) {
    for (const to of this.peers) this.send(to, msg)
  },
  setTimer: () => {},
  cancelTimer: () => {},
  random: () => 0.5,
  emit: (e) => {
    if (e.type === 'deliver') delivered[self]!.push(e.payload)
  },
})
const nodes = Object.fromEntries(ids.map((id) => [id, causalBroadcast<string>()]))
const take = (to: string, from: string) => {
  const i = inFlight.findIndex((m) => m.to === to && m.from === from)
  const [m] = inFlight.splice(i, 1)
  nodes[to]!.onMessage(m!.from, m!.msg, ctx(to))
}

nodes.a!.onRequest!({ type: 'broadcast', payload: 'question' }, ctx('a'))
take('b', 'a') // b sees the question...
nodes.b!.onRequest!({ type: 'broadcast', payload: 'answer' }, ctx('b')) // ...and answers it
take('c', 'b') // c gets the answer first: it is held back
assert.deepEqual(delivered.c, [])
take('c', 'a') // the question arrives: both are delivered, question first
assert.deepEqual(delivered.c, ['question', 'answer'])
