import type { NodeId } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { type BullyEvent, bully } from '../src/bully/index.js'
import { InvalidArgumentError } from '../src/index.js'
import { type ElectionRun, runElection } from './support/harness.js'
import { stubCtx } from './support/stub-ctx.js'

/** Election messages (no heartbeats) sent from `from` on, as "type from->to", in order. */
function electionMessages(run: ElectionRun, from: number): string[] {
  const out: string[] = []
  for (const entry of run.net.trace) {
    if (entry.type !== 'send' || entry.t < from) continue
    const e = entry as { from: NodeId; to: NodeId; msg: { type: string } }
    if (e.msg.type !== 'heartbeat') out.push(`${e.msg.type} ${e.from}->${e.to}`)
  }
  return out
}

/** When `node` lost its leader after `from`, and when it then claimed the lead itself. */
function suspicionToClaim(run: ElectionRun<BullyEvent>, node: NodeId, from: number) {
  const lost = run.events.find(
    (e) => e.node === node && e.t >= from && e.event.type === 'leader-lost',
  )
  const claim = run.events.find(
    (e) => e.node === node && e.t >= from && e.event.type === 'leader' && e.event.leader === node,
  )
  return { lost: lost?.t, claim: claim?.t }
}

/** 0, 1, 2 elect 2; 2 crashes at 1000 and stays down. */
const crashOfTheLeader = (trustDetector: boolean) =>
  runElection([0, 1, 2], bully({ trustDetector }), {
    seed: 1,
    until: 3000,
    plan: (net) => net.at(1000, () => net.crash(2)),
  })

describe('bully({ trustDetector }): the leader its own detector declared silent is not asked', () => {
  it('the textbook bully asks the dead leader and waits okTimeoutMs for it', () => {
    const run = crashOfTheLeader(false)
    expect(electionMessages(run, 1000)).toContain('election 1->2')
    const { lost, claim } = suspicionToClaim(run, 1, 1000)
    expect(claim! - lost!).toBe(100) // okTimeoutMs: the heartbeat interval
    expect(run.agreed?.leader).toBe(1)
  })

  it('with trustDetector, 1 announces as soon as its detector suspects 2', () => {
    const run = crashOfTheLeader(true)
    const messages = electionMessages(run, 1000)
    expect(messages).not.toContain('election 1->2')
    expect(messages).toContain('coordinator 1->0')
    const { lost, claim } = suspicionToClaim(run, 1, 1000)
    expect(claim).toBe(lost)
    expect(run.violations).toEqual([])
    expect(run.agreed?.leader).toBe(1)
  })

  it('already electing (a worse node asked first), 1 stops waiting for 2 when it suspects it', () => {
    const { lost } = suspicionToClaim(crashOfTheLeader(true), 1, 1000)
    // 0 asks 40 ms before 1's own detector would suspect 2 (the same run up to then).
    const run = runElection([0, 1, 2], bully({ trustDetector: true }), {
      seed: 1,
      until: 3000,
      plan: (net) => {
        net.at(1000, () => net.crash(2))
        net.request(0, { type: 'start' }, lost! - 40)
      },
    })
    expect(electionMessages(run, 1000).slice(0, 4)).toEqual([
      'election 0->1',
      'election 0->2',
      'ok 1->0',
      'election 1->2', // 1 does not suspect 2 yet: it asks it
    ])
    const ones = run.events.filter((e) => e.node === 1 && e.t >= 1000).map((e) => e.event.type)
    expect(ones).toEqual(['election-started', 'leader-lost', 'leader'])
    const claim = suspicionToClaim(run, 1, 1000)
    expect(claim.claim).toBe(lost) // at its suspicion, not okTimeoutMs after its ELECTION
    expect(run.agreed?.leader).toBe(1)
  })

  it('a false suspicion costs two terms and a short time with two leaders, then 2 leads again', () => {
    // 2 is paused (a GC pause) past the heartbeat timeout: 0 and 1 suspect it, 1 announces
    // without asking it; 2 resumes, hears a worse candidate's COORDINATOR and bullies back.
    const run = runElection([0, 1, 2], bully({ trustDetector: true }), {
      seed: 1,
      until: 4000,
      plan: (net) => {
        net.at(1000, () => net.pause(2))
        net.at(1700, () => net.resume(2))
      },
    })
    const leaders = run.events
      .filter((e) => e.node === 0 && e.event.type === 'leader')
      .map((e) => (e.event as { leader: NodeId }).leader)
    expect(leaders).toEqual([2, 1, 2])
    expect(run.violations).toEqual([])
    expect(run.agreed?.leader).toBe(2)
    expect(run.agreed!.term).toBeGreaterThan(3) // 2's first term was 3: it took a new one
  })

  it('the snapshot names the silent leader while it is left out, and forgets it once heard', () => {
    const p = bully({ trustDetector: true })(1)
    const ctx = stubCtx<never, BullyEvent>(1, [2, 3])
    p.onMessage(3, { type: 'coordinator', term: 3 } as never, ctx)
    ctx.clock = ctx.timers.get('heartbeat:silence')!
    p.onTimer?.('heartbeat:silence', ctx)
    expect(p.snapshot?.()).toMatchObject({ phase: 'electing', silent: 3 })
    p.onMessage(3, { type: 'heartbeat', term: 3 } as never, ctx)
    expect(p.snapshot?.()).toMatchObject({ silent: null })
    expect(bully()(1).snapshot?.()).not.toHaveProperty('silent') // the textbook bully's is unchanged
  })

  it('is a boolean', () => {
    expect(() => bully({ trustDetector: 'yes' as unknown as boolean })).toThrow(
      InvalidArgumentError,
    )
  })
})
