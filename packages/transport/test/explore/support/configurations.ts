/**
 * The explorer's test configurations: scenarios of the test protocols with the options that
 * exercise faults, timers and reordering links (the DPOR tests run them all).
 */
import {
  changRoberts,
  flood,
  pingPong,
  vectorBroadcast,
} from '../../../../../test-support/explore-protocols.js'
import type { ExploreOptions, ExploreScenario } from '../../../src/explore/index.js'
import { type AnyFactory, causal, emitted, ids, launch, mutex } from './scenarios.js'

export const quiet = () => undefined

export const once = (n: number, factory: AnyFactory, fifo = true): ExploreScenario => ({
  fifo,
  setup: launch(ids(n), factory),
  invariant: ({ events }) => {
    for (const node of ids(n)) {
      const got = emitted(events, node).filter((e) => e.startsWith('got') || e.startsWith('leader'))
      if (got.length > 1) return `node ${node} heard it ${got.length} times`
    }
    return undefined
  },
})

/** n nodes, k broadcasts each; each node delivers every sender's messages in their order. */
export const broadcasts = (
  n: number,
  k: number,
  onArrival = false,
  fifo = true,
): ExploreScenario => ({
  fifo,
  setup(net) {
    net.launch(ids(n), vectorBroadcast(onArrival))
    for (const id of ids(n))
      for (let j = 1; j <= k; j++) net.request(id, { payload: `m${id}.${j}` })
  },
  invariant: ({ events }) => {
    for (const node of ids(n)) {
      const seen = emitted(events, node)
      for (const sender of ids(n))
        for (let j = 2; j <= k; j++) {
          const later = seen.indexOf(`deliver m${sender}.${j}`)
          if (later >= 0 && seen.indexOf(`deliver m${sender}.${j - 1}`) > later)
            return `node ${node} delivered m${sender}.${j} before m${sender}.${j - 1}`
        }
    }
    return undefined
  },
})

export const configurations: Array<[string, ExploreScenario, ExploreOptions?]> = [
  ['ping-pong, 3 nodes, 1 round', { setup: launch(ids(3), pingPong(1)), invariant: quiet }],
  ['ping-pong, 3 nodes, 2 rounds', { setup: launch(ids(3), pingPong(2)), invariant: quiet }],
  ['ping-pong, 4 nodes, 1 round', { setup: launch(ids(4), pingPong(1)), invariant: quiet }],
  [
    'ping-pong, 3 nodes, one loss',
    { setup: launch(ids(3), pingPong(1)), invariant: quiet },
    { faults: { loss: 1 } },
  ],
  ['racy mutex, 2 nodes', mutex(2, false)],
  ['racy mutex, 3 nodes', mutex(3, false)],
  ['mutex, 3 nodes', mutex(3, true)],
  ['mutex, 3 nodes, one crash', mutex(3, true), { faults: { crash: 1 } }],
  ['mutex, 2 nodes, one pause', mutex(2, true), { faults: { pause: 1 } }],
  ['racy mutex, 2 nodes, one duplicate', mutex(2, false), { faults: { duplicate: 1 } }],
  [
    'flood, 3 nodes, a loss or a duplicate',
    once(3, flood(true)),
    { faults: { loss: 1, duplicate: 1, total: 1 } },
  ],
  [
    'ping-pong, clock step, timers in any order',
    { setup: launch(ids(3), pingPong(1)), invariant: quiet },
    { faults: { clockStep: 1 }, timers: 'any-order' },
  ],
  ['flood, 3 nodes', once(3, flood(true))],
  ['flood, 4 nodes', once(4, flood(true))],
  ['flood without dedupe, 3 nodes', once(3, flood(false)), { depth: 20 }],
  ['ring, 3 nodes, reordering links', once(3, changRoberts(3, true), false)],
  ['ring without the flag', once(3, changRoberts(3, false), false)],
  ['causal broadcast a -> b', causal(false)],
  ['causal broadcast on arrival', causal(true)],
  ['vector broadcast, 3 nodes, 1 each', broadcasts(3, 1)],
  ['vector broadcast, 2 nodes, 2 each, reordering', broadcasts(2, 2, false, false)],
  ['vector broadcast on arrival, reordering', broadcasts(2, 2, true, false)],
]
