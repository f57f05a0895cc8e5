import { describeTransportCompliance } from '../testing/index.js'
import { SimNetwork } from './network.js'

describeTransportCompliance('in-memory simulator', () => {
  // Reordering latencies on purpose: FIFO must still hold, as documented.
  const net = new SimNetwork({
    seed: 7,
    latency: { kind: 'uniform', min: 1, max: 30 },
    copyMessages: 'json',
  })
  return {
    create: async (ids) => ids.map((id) => net.addNode(id)),
    settle: async (done, what) => {
      while (!done()) if (!net.step()) throw new Error(`network went quiet before ${what}`)
    },
    teardown: async () => {},
  }
})
