import { type BullyMessage, bully, type MajorityEvent, majorityElection } from '@sd/election'
import { centralized, quorumMutex } from '@sd/mutex'
import { type BerkeleyMessage, berkeley } from '@sd/timesync'
import type { ProtocolFactory } from '@sd/transport'
import { explore } from '@sd/transport/explore'
import { describe, expect, it } from 'vitest'
import { BERKELEY, berkeleyCheck, berkeleyScenario } from './berkeley.js'
import { sd, wrapping } from './broken-variants.js'
import { BULLY, bullyCheck, bullyScenario } from './election-faults.js'
import { MAJORITY_HEARTBEAT, majorityCheck, majorityScenario } from './election-majority.js'
import {
  FAILOVER,
  failoverCheck,
  failoverScenario,
  QUORUM,
  quorumCheck,
  quorumScenario,
} from './mutex-restarts.js'
import { defaultsAt } from './spec.js'

/** name: whether its default run is exhausted (false: bounded by maxSchedules). */
const SPECS = {
  'election-bully': false,
  'election-ring': false,
  'election-yoyo': true,
  'deadlock-cmh': false,
  berkeley: true,
  'mutex-quorum': true,
}

describe('sd check: the fault specs run their defaults with no violation', () => {
  it('every spec is registered under the name of a playground scenario', () => {
    const list = sd('list').out
    for (const name of Object.keys(SPECS)) expect(list).toContain(name)
  })

  it('election-majority (no scenario of its own: the check runs the package alone)', () => {
    const { code, out } = sd('check', 'election-majority', '--json')
    expect(code, out).toBe(0)
    expect(JSON.parse(out)).toMatchObject({ exhausted: false, violations: [], cutByDepth: 0 })
  })

  for (const [name, exhausted] of Object.entries(SPECS))
    it(name, () => {
      const { code, out } = sd('check', name, '--json')
      expect(code, out).toBe(0)
      const result = JSON.parse(out)
      expect(result).toMatchObject({ scenario: name, exhausted, violations: [], cutByDepth: 0 })
      expect(result.search).toBe('stateful')
      // Stateful: schedules count only runs taken to their end; YoYo's all end alike.
      expect(result.states).toBeGreaterThan(50)
    })

  it('mutex-centralized-failover (no scenario of its own: the check runs the package alone)', () => {
    const { code, out } = sd('check', 'mutex-centralized-failover', '--json')
    expect(code, out).toBe(0)
    expect(JSON.parse(out)).toMatchObject({ exhausted: true, violations: [], cutByDepth: 0 })
  })

  it('deadlock-cmh runs at n = 4 by default, bounded there only', () => {
    expect(sd('check', 'deadlock-cmh', '--help').out).toContain('(default 4)')
    expect(JSON.parse(sd('check', 'deadlock-cmh', '--json').out).n).toBe(4)
    expect(JSON.parse(sd('check', 'deadlock-cmh', '--n', '2', '--json').out)).toMatchObject({
      exhausted: true,
      violations: [],
    })
  })
})

/** `factory` with the events it emits filtered by `keep` (a defect, for the specs to catch). */
function filteringEmits<Msg, Req, Ev>(
  factory: ProtocolFactory<Msg, Req, Ev>,
  keep: (event: Ev) => boolean,
): ProtocolFactory<Msg, Req, Ev> {
  return wrapping(factory, (ctx) => ({
    send: (to, msg) => ctx.send(to, msg),
    broadcast: (msg) => ctx.broadcast(msg),
    emit: (event) => {
      if (keep(event)) ctx.emit(event)
    },
  }))
}

/** `factory` with every message it sends rewritten by `rewrite` (a defect, for the specs to catch). */
function rewritingSends<Msg, Req, Ev>(
  factory: ProtocolFactory<Msg, Req, Ev>,
  rewrite: (msg: Msg) => Msg,
): ProtocolFactory<Msg, Req, Ev> {
  return wrapping(factory, (ctx) => ({
    send: (to, msg) => ctx.send(to, rewrite(msg)),
    broadcast: (msg) => ctx.broadcast(rewrite(msg)),
    emit: (event) => ctx.emit(event),
  }))
}

/** `factory` whose timers are set for `ms(key, asked)` instead (a defect, for the specs to catch). */
function wrappingTimers<Msg, Req, Ev>(
  factory: ProtocolFactory<Msg, Req, Ev>,
  ms: (key: string, asked: number) => number,
): ProtocolFactory<Msg, Req, Ev> {
  return wrapping(factory, (ctx) => ({
    send: (to, msg) => ctx.send(to, msg),
    broadcast: (msg) => ctx.broadcast(msg),
    emit: (event) => ctx.emit(event),
    setTimer: (key, asked) => ctx.setTimer(key, ms(key, asked)),
  }))
}

describe('the fault specs catch broken variants', () => {
  it('election-bully: a bully whose COORDINATOR and heartbeats carry no real term (always 1)', () => {
    const broken = rewritingSends(
      bully({ heartbeat: { intervalMs: 10_000, timeoutMs: 50_000 }, ...BULLY }),
      (msg: BullyMessage): BullyMessage =>
        msg.type === 'coordinator' || msg.type === 'heartbeat' ? { ...msg, term: 1 } : msg,
    )
    const result = explore(bullyScenario(3, broken), defaultsAt(bullyCheck, 3))
    expect(result.counterexample?.message).toMatch(
      /has two leaders|went back|ends (following|without a leader)/,
    )
  })

  it('election-majority: a leader that never steps down when it loses its majority (no stepped-down, no leader-lost)', () => {
    const broken = filteringEmits(
      majorityElection({ heartbeat: MAJORITY_HEARTBEAT }),
      (event: MajorityEvent) => event.type !== 'leader-lost' && event.type !== 'stepped-down',
    )
    const result = explore(majorityScenario(broken), defaultsAt(majorityCheck, 3))
    expect(result.counterexample?.message).toMatch(/still led term|both led/)
  })

  it('mutex-quorum: coordinators that keep their grants in memory only (a restart forgets them)', () => {
    const result = explore(
      quorumScenario(quorumMutex({ ...QUORUM, durableGrants: false })),
      defaultsAt(quorumCheck, 3),
    )
    expect(result.counterexample?.message).toMatch(/acquired .* while 1 held it/)
  })

  it('mutex-centralized-failover: a new coordinator that ends its recovery at once grants while node 3 holds', () => {
    // Its recovery timer (wait out every lease of the old coordinator) set to 0 ms: it grants
    // before node 3's SYNC tells it who holds the lock.
    const broken = wrappingTimers(centralized(FAILOVER), (key, ms) => (key === 'recovery' ? 0 : ms))
    const result = explore(failoverScenario(broken), defaultsAt(failoverCheck, 3))
    expect(result.counterexample?.message).toMatch(/2 acquired default .* while 3 held it/)
  })

  it('berkeley: a master that reports no error bound with its adjustments', () => {
    const broken = rewritingSends(
      berkeley(BERKELEY),
      (msg: BerkeleyMessage): BerkeleyMessage =>
        msg.type === 'berkeley-adjust' ? { ...msg, errorBoundMs: 0 } : msg,
    )
    const result = explore(berkeleyScenario(4, broken), defaultsAt(berkeleyCheck, 4))
    expect(result.counterexample?.message).toMatch(/beyond its bound/)
  })
})
