/**
 * Finding 2 of issue 19: a leader cut off alone whose wall clock steps back must still give up its
 * lease in time. Durations run on each node's monotonic clock, so a wall-clock step changes
 * nothing; before, a step of -200 ms or more kept the cut-off leader leading while the majority
 * elected another.
 */
import { emitsOf, faultsOf, type NodeId, SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { checkElection } from '../src/check.js'
import { eventFields } from '../src/event-fields.js'
import { majorityElection } from '../src/majority/index.js'
import { currentLeader } from './support/views.js'

const TIMEOUT = 500 // the default detection timeout (5 heartbeats of 100 ms)
const STEPS = [-200, -500, -1000, -3000]

describe('majorityElection with wall-clock steps', () => {
  it('a cut-off leader whose wall clock steps back never leads beside the new leader', () => {
    let elected = 0
    forSeeds(seedList(80), (seed) => {
      const n = seed % 2 === 0 ? 3 : 5
      const ids: NodeId[] = Array.from({ length: n }, (_, i) => i + 1)
      const net = new SimNetwork({ seed, latency: { kind: 'uniform', min: 1, max: 10 } })
      // Clocks that run at slightly different rates (|drift| <= 1e-3): the assumption is a bound
      // on the rate, not on the reading.
      net.launch(ids, majorityElection())
      for (const id of ids)
        net.setClock(id, { drift: ((seed * 7 + Number(id) * 13) % 21) * 1e-4 - 1e-3 })
      net.run({ until: 2000 + ((seed * 37) % 100) })
      const leader = currentLeader(emitsOf(net.trace), ids)
      expect(leader, 'a leader before the cut').toBeDefined()
      const step = STEPS[seed % STEPS.length]!
      net.partition(
        [leader!],
        ids.filter((id) => id !== leader),
      )
      net.stepClock(leader!, step)
      net.runFor(8 * TIMEOUT)
      net.heal()
      net.runFor(8 * TIMEOUT)
      const events = emitsOf(net.trace)
      const verdict = checkElection(events, faultsOf(net.trace), { minorityGraceMs: TIMEOUT })
      expect(verdict.violations, `step ${step} ms on the leader ${leader}`).toEqual([])
      const cutAt = faultsOf(net.trace).find((f) => f.type === 'partition')!.t
      const others = events.filter((e) => {
        const ev = eventFields(e.event)
        return e.t > cutAt && ev?.type === 'leader' && ev.leader === e.node && e.node !== leader
      })
      if (others.length > 0) elected++
    })
    // The majority did elect during every cut, so the runs did put two would-be leaders side by side.
    expect(elected).toBe(seedList(80).length)
  })
})
