/**
 * Pauses (SIGSTOP, a long GC, a stalled VM): a paused node runs nothing while its clocks and
 * everybody else go on, then handles its backlog late. Leaders and followers are paused, often
 * past the lease; the global checker judges every run: one leader per term, never two at once,
 * none on a minority side, and one leader agreed by all soon after the last resume.
 */
import { createRandom, emitsOf, faultsOf, type NodeId, SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { agreedLeader, checkElection } from '../src/check.js'
import { eventFields } from '../src/event-fields.js'
import { majorityElection } from '../src/majority/index.js'
import { currentLeader } from './support/views.js'

const TIMEOUT = 500
/** After the last resume, every node follows one leader within this, and nothing changes after. */
const SETTLE_BOUND = 3 * TIMEOUT

describe('majorityElection under pauses', () => {
  it('safe across nodes, and one agreed leader soon after the last resume, for every seed', () => {
    let pausedLeaders = 0
    let leaderPausedPastLease = 0
    let worstSettle = 0
    forSeeds(seedList(150), (seed) => {
      const n = [3, 5, 7][seed % 3]!
      const ids: NodeId[] = Array.from({ length: n }, (_, i) => i + 1)
      const rnd = createRandom(`majority-pause/${seed}`)
      const net = new SimNetwork({ seed, latency: { kind: 'uniform', min: 1, max: 10 } })
      net.launch(ids, majorityElection())
      for (const id of ids) net.setClock(id, { drift: (rnd.next() * 2 - 1) * 1e-3 })
      net.run({ until: 2000 })
      let lastResume = 0
      for (let round = 0; round < 5; round++) {
        const leader = currentLeader(emitsOf(net.trace), ids)
        // The leader more often than not, sometimes a follower too, or one follower alone.
        const victims: NodeId[] = []
        if (leader !== undefined && rnd.next() < 0.7) victims.push(leader)
        if (victims.length === 0 || rnd.next() < 0.3) {
          const followers = ids.filter((id) => id !== leader)
          victims.push(followers[rnd.int(0, followers.length - 1)]!)
        }
        const pauseMs = rnd.int(50, 3000)
        if (leader !== undefined && victims.includes(leader)) {
          pausedLeaders++
          if (pauseMs > TIMEOUT) leaderPausedPastLease++
        }
        for (const v of victims) net.pause(v)
        net.runFor(pauseMs)
        for (const v of victims) net.resume(v)
        lastResume = net.now
        net.runFor(rnd.int(0, 4 * TIMEOUT))
      }
      net.runFor(8 * TIMEOUT)
      const events = emitsOf(net.trace)
      const verdict = checkElection(events, faultsOf(net.trace), {
        members: ids,
        minorityGraceMs: TIMEOUT,
      })
      expect(verdict.violations).toEqual([])
      expect(agreedLeader(verdict, ids), 'one leader agreed by all at the end').toBeDefined()
      let last = lastResume
      for (const e of events) {
        const type = eventFields(e.event)?.type
        if (e.t > lastResume && (type === 'leader' || type === 'leader-lost')) last = e.t
      }
      expect(last - lastResume, 'views settle after the last resume').toBeLessThanOrEqual(
        SETTLE_BOUND,
      )
      worstSettle = Math.max(worstSettle, last - lastResume)
    })
    // The runs did pause leaders past their lease, many times over.
    expect(leaderPausedPastLease).toBeGreaterThan(100)
    console.log(
      `pauses: ${pausedLeaders} leaders paused (${leaderPausedPastLease} past the lease); ` +
        `views settled at most ${worstSettle.toFixed(0)} ms after the last resume`,
    )
  })

  it('a leader paused past its lease steps down in its first step after the resume', () => {
    const ids = [1, 2, 3]
    const net = new SimNetwork({ seed: 3 })
    net.launch(ids, majorityElection())
    net.run({ until: 2000 })
    const leader = currentLeader(emitsOf(net.trace), ids)!
    net.pause(leader)
    net.runFor(3 * TIMEOUT)
    const resumedAt = net.now
    net.resume(leader)
    net.runFor(1)
    const after = emitsOf(net.trace).filter((e) => e.node === leader && e.t >= resumedAt)
    expect(after[0]?.event).toMatchObject({ type: 'stepped-down', reason: 'lease' })
    expect(after[0]?.t).toBe(resumedAt)
    // It sent nothing of its old leadership: no heartbeat left it after the resume.
    const beats = net.trace.filter(
      (e) =>
        e.type === 'send' &&
        e.from === leader &&
        e.t >= resumedAt &&
        (e.msg as { type: string }).type === 'heartbeat',
    )
    expect(beats).toEqual([])
  })
})
