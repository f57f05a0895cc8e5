import { afterEach, describe, expect, it } from 'vitest'
import { type NodeId, type ProtocolHandle, runProtocol, SimNetwork } from '../src/index.js'
import { pollUntil } from '../src/testing/index.js'
import { createUdpTransport, type UdpTransport } from '../src/udp/index.js'
import { eventMultiset, type RollThenTallyMessage, rollThenTally } from './composed-protocols.js'

const members: NodeId[] = ['n1', 'n2', 'n3']
/** Per node: the roll call hears 2 peers, completes and ticks; the tally counts and ticks. */
const EVENTS_PER_NODE = 6

let transports: UdpTransport<RollThenTallyMessage>[] = []
let handles: ProtocolHandle<unknown, unknown>[] = []
afterEach(async () => {
  for (const h of handles) h.stop()
  await Promise.all(transports.map((t) => t.close({ graceful: false })))
  transports = []
  handles = []
})

describe('one composed protocol, in the simulator and over UDP', () => {
  it('emits the same namespaced events on every node', async () => {
    // The simulator: same members, same factory.
    const net = new SimNetwork({
      seed: 9,
      latency: { kind: 'uniform', min: 1, max: 20 },
      fifo: false,
    })
    const simulated = new Map<NodeId, unknown[]>(members.map((id) => [id, []]))
    net.onEmit((node, event) => simulated.get(node)!.push(event))
    net.launch(members, rollThenTally)
    net.run()

    // Real sockets on loopback, real timers, one runtime per node.
    const real = new Map<NodeId, unknown[]>(members.map((id) => [id, []]))
    for (const id of members)
      transports.push(await createUdpTransport<RollThenTallyMessage>({ id: String(id) }))
    for (const t of transports)
      for (const peer of transports) t.setPeer(peer.self, `127.0.0.1:${peer.address.port}`)
    for (const transport of transports) {
      handles.push(
        runProtocol(rollThenTally(), {
          transport,
          members,
          onEvent: (event) => real.get(transport.self)!.push(event),
        }) as ProtocolHandle<unknown, unknown>,
      )
    }
    await pollUntil(
      () => [...real.values()].every((events) => events.length >= EVENTS_PER_NODE),
      'every node to emit its events over UDP',
    )

    for (const id of members) {
      expect(simulated.get(id)).toHaveLength(EVENTS_PER_NODE)
      expect(eventMultiset(real.get(id)!), `node ${String(id)}`).toEqual(
        eventMultiset(simulated.get(id)!),
      )
      // What causality orders is in that order in both runs: heard, heard, complete, counted.
      for (const events of [real.get(id)!, simulated.get(id)!]) {
        const types = events
          .map((e) => (e as { event: { type: string } }).event.type)
          .filter((type) => type !== 'tick')
        expect(types).toEqual(['heard', 'heard', 'complete', 'counted'])
      }
    }
    expect(eventMultiset(real.get('n1')!)).toEqual([
      '{"proto":"roll","event":{"type":"complete"}}',
      '{"proto":"roll","event":{"type":"heard","from":"n2"}}',
      '{"proto":"roll","event":{"type":"heard","from":"n3"}}',
      '{"proto":"roll","event":{"type":"tick","who":"roll"}}',
      '{"proto":"tally","event":{"type":"counted","acks":2,"runs":1}}',
      '{"proto":"tally","event":{"type":"tick","who":"tally"}}',
    ])
  })
})
