/**
 * Phi accrual as the majority election's follower-side detector (`heartbeat.detector: { phi }`).
 * The votes and the lease still count timeoutMs, so safety is the timeout's; what phi changes is
 * when a follower gives up on the leader: a pause of the leader within the acceptable pause is
 * ridden out, a crash still ends in an election, and on a lossy link phi, which learns the gaps,
 * suspects a live leader far less often than the fixed timeout does.
 */
import { createRandom, emitsOf, faultsOf, type NodeId, SimNetwork } from '@sd/transport'
import { runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { agreedLeader, checkElection } from '../src/check.js'
import { type MajorityOptions, majorityElection } from '../src/majority/index.js'
import { resolveOptions } from '../src/majority/options.js'

const INTERVAL = 100
const TIMEOUT = 500
/** phi's default acceptable pause: timeoutMs - intervalMs. */
const ACCEPTABLE_PAUSE = TIMEOUT - INTERVAL
const PHI: MajorityOptions = {
  heartbeat: { intervalMs: INTERVAL, timeoutMs: TIMEOUT, detector: { phi: {} } },
}
const ids = (n: number): NodeId[] => Array.from({ length: n }, (_, i) => i + 1)
const ELECTION_EVENTS = new Set(['leader-lost', 'pre-candidate', 'candidate', 'stepped-down'])

/** Runs n nodes, lets the best (n) lead term 1, then applies `fault` to it at 2,000 ms. */
function run(
  n: number,
  seed: number,
  options: MajorityOptions,
  fault: (net: SimNetwork, leader: NodeId) => void,
) {
  const nodes = ids(n)
  const sim = runInSim(nodes, majorityElection(options), {
    seed,
    net: { latency: { kind: 'uniform', min: 1, max: 10 } },
    plan: (sim) => sim.at(2000, () => fault(sim, n)),
    until: 9000,
  })
  const verdict = checkElection(emitsOf(sim.net.trace), faultsOf(sim.net.trace), {
    members: nodes,
    minorityGraceMs: TIMEOUT,
  })
  return { ...sim, verdict, nodes }
}

describe('majorityElection with phi accrual', () => {
  it('takes the detector from heartbeat options; without it the settings are as before', () => {
    expect(resolveOptions(PHI).detector?.phi).toMatchObject({
      firstHeartbeatEstimateMs: INTERVAL,
      acceptablePauseMs: ACCEPTABLE_PAUSE,
      threshold: 8,
    })
    expect('detector' in resolveOptions({})).toBe(false)
    expect('detector' in resolveOptions({ heartbeat: { detector: 'timeout' } })).toBe(false)
    expect(() => resolveOptions({ heartbeat: { detector: { phi: { threshold: 0 } } } })).toThrow(
      /threshold/,
    )
  })

  it('a pause of the leader shorter than the acceptable pause causes no election', () => {
    let paused = 0
    forSeeds(seedList(40), (seed) => {
      const n = [3, 5, 7][seed % 3]!
      // The follower's silence is the pause plus up to an interval: stay below the acceptable pause.
      const pauseMs = 50 + ((seed * 37) % (ACCEPTABLE_PAUSE - INTERVAL - 60))
      const r = run(n, seed, PHI, (net, leader) => {
        net.pause(leader)
        net.at(2000 + pauseMs, () => net.resume(leader))
      })
      expect(r.verdict.violations).toEqual([])
      const after = r.events.filter((e) => e.t >= 2000 && ELECTION_EVENTS.has(e.event.type))
      expect(after, `pause of ${pauseMs} ms`).toEqual([])
      expect(agreedLeader(r.verdict, r.nodes)).toEqual({ leader: n, term: 1 })
      paused++
    })
    expect(paused).toBeGreaterThan(0)
  })

  it('a pause well past it (and past the lease) does end in an election', () => {
    forSeeds(seedList(10), (seed) => {
      const r = run(5, seed, PHI, (net, leader) => {
        net.pause(leader)
        net.at(2000 + 3 * TIMEOUT, () => net.resume(leader))
      })
      expect(r.verdict.violations).toEqual([])
      const agreed = agreedLeader(r.verdict, r.nodes)
      expect(agreed?.term).toBeGreaterThan(1)
    })
  })

  it('after a crash of the leader: one leader per term across all nodes, a new one within bound', () => {
    // Suspicion (phi: the timeout plus a few deviations), the best live node's candidacy slot,
    // a pre-vote and a vote: well inside two timeouts and a half.
    const BOUND = 2.5 * TIMEOUT
    let worst = 0
    forSeeds(seedList(60), (seed) => {
      const n = [3, 4, 5, 7, 9][seed % 5]!
      const r = run(n, seed, PHI, (net, leader) => net.crash(leader))
      expect(r.verdict.violations).toEqual([])
      const live = r.nodes.filter((id) => id !== n)
      const agreed = agreedLeader(r.verdict, live)
      expect(agreed).toBeDefined()
      expect(agreed!.term).toBeGreaterThan(1)
      const elected = r.events.find(
        (e) => e.t > 2000 && e.event.type === 'leader' && e.event.term === agreed!.term,
      )!
      const took = elected.t - 2000
      // Not before the timeout: a follower refuses candidates for timeoutMs after a heartbeat.
      expect(took).toBeGreaterThan(TIMEOUT - INTERVAL)
      expect(took, `seed ${seed}, n ${n}`).toBeLessThan(BOUND)
      worst = Math.max(worst, took)
    })
    console.log(`phi majority: a leader at most ${worst.toFixed(0)} ms after the crash`)
  })

  it('on lossy links from the leader, phi suspects a live leader far less often than the timeout', () => {
    // A tight timeout (2.5 intervals): two heartbeats lost in a row are a suspicion. The loss is
    // on the leader's links to two of five followers only, so its lease (the acks of the other
    // two) holds and every suspicion counted is a follower's false one.
    const tight = { intervalMs: INTERVAL, timeoutMs: 250 }
    const count = (options: MajorityOptions) => {
      let lost = 0
      forSeeds(seedList(10), (seed) => {
        const r = run(5, seed, options, (net, leader) => {
          for (const lossy of [1, 2]) net.setLink(leader, lossy, { loss: 0.15 }, { oneWay: true })
        })
        expect(r.verdict.violations).toEqual([])
        expect(agreedLeader(r.verdict, r.nodes)).toEqual({ leader: 5, term: 1 })
        lost += r.events.filter((e) => e.t >= 2000 && e.event.type === 'leader-lost').length
      })
      return lost
    }
    const timeout = count({ heartbeat: tight })
    const phi = count({ heartbeat: { ...tight, detector: { phi: {} } } })
    console.log(
      `15% loss to 2 of 5, 10 runs of 7 s: leader-lost ${timeout} (timeout), ${phi} (phi)`,
    )
    expect(timeout).toBeGreaterThan(10)
    expect(phi).toBeLessThan(timeout / 3)
  })

  it('under random pauses of leaders and followers: safe across nodes, one leader agreed at the end', () => {
    forSeeds(seedList(40), (seed) => {
      const n = [3, 5, 7][seed % 3]!
      const nodes = ids(n)
      const rnd = createRandom(`majority-phi-pause/${seed}`)
      const net = new SimNetwork({ seed, latency: { kind: 'uniform', min: 1, max: 10 } })
      net.launch(nodes, majorityElection(PHI))
      net.run({ until: 2000 })
      for (let round = 0; round < 4; round++) {
        const victim = nodes[rnd.int(0, n - 1)]!
        net.pause(victim)
        net.runFor(rnd.int(50, 2000))
        net.resume(victim)
        net.runFor(rnd.int(0, 3 * TIMEOUT))
      }
      net.runFor(8 * TIMEOUT)
      const verdict = checkElection(emitsOf(net.trace), faultsOf(net.trace), {
        members: nodes,
        minorityGraceMs: TIMEOUT,
      })
      expect(verdict.violations).toEqual([])
      expect(agreedLeader(verdict, nodes), 'one leader agreed by all at the end').toBeDefined()
    })
  })
})
