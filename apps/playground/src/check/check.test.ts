import type { MutexRequest } from '@sd/mutex'
import type { NodeId, Protocol, ProtocolFactory } from '@sd/transport'
import { explore, replay } from '@sd/transport/explore'
import { describe, expect, it } from 'vitest'
import { main } from '../cli.js'
import { checks } from './index.js'
import { mutexScenario, ricartAgrawalaCheck } from './mutex.js'
import { mutexElectionCheck, mutexElectionScenario } from './mutex-election.js'
import { defaultsAt } from './spec.js'

function sd(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = main(argv, { out: (t) => out.push(t), err: (t) => err.push(t) })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

/**
 * The specs this file adds, one per package besides clocks (whose specs have their own runs);
 * deadlock-cmh, bounded at its default n = 4, is run in fault-specs.test.ts.
 */
const SPECS = ['flood', 'mutex-ricart-agrawala', 'election-chang-roberts', 'cristian']

describe('sd check: one spec per package exhausts its default bounds with no violation', () => {
  it('every spec is registered, under the name of a playground scenario', () => {
    const names = checks.map((c) => c.scenario)
    for (const name of SPECS) expect(names).toContain(name)
    const list = sd('list').out
    for (const name of SPECS) expect(list).toContain(name)
  })

  for (const name of SPECS)
    it(name, () => {
      const { code, out } = sd('check', name, '--json')
      expect(code, out).toBe(0)
      const result = JSON.parse(out)
      expect(result).toMatchObject({ scenario: name, mode: 'exhaustive', exhausted: true })
      expect(result.violations).toEqual([])
      expect(result.cutByDepth).toBe(0)
      expect(result.schedules).toBeGreaterThan(1)
    })

  it('flood survives one injected fault (loss, duplicate or crash) at n = 3', () => {
    const { code, out } = sd('check', 'flood', '--faults', '1', '--json')
    expect(code, out).toBe(0)
    const result = JSON.parse(out)
    expect(result.exhausted).toBe(true)
    expect(result.bounds.faults).toBe(1)
    // A lost copy, a crash: end states a fault-free run never reaches.
    expect(result.terminalStates).toBeGreaterThan(1)
  })

  it('Ricart-Agrawala stays safe at n = 2 with two faults of any kind', () => {
    const { code, out } = sd(
      'check',
      'mutex-ricart-agrawala',
      '--n',
      '2',
      '--faults',
      '2',
      '--json',
    )
    expect(code, out).toBe(0)
    expect(JSON.parse(out)).toMatchObject({ exhausted: true, violations: [] })
  })

  it('the text output names what is explored and that the invariant held', () => {
    const { code, out } = sd('check', 'election-chang-roberts')
    expect(code).toBe(0)
    expect(out).toContain(checks.find((c) => c.scenario === 'election-chang-roberts')!.what)
    expect(out).toContain('exhausted within the bounds')
    expect(out).toContain('invariant held in every schedule explored')
  })
})

describe('sd check: usage errors exit 2', () => {
  for (const args of [
    ['check'],
    ['check', 'no-such-scenario'],
    ['check', 'flood', 'mutex-ricart-agrawala'],
    ['check', 'flood', '--n', '1'],
    ['check', 'flood', '--n', '99'],
    ['check', 'cristian', '--n', 'three'],
    ['check', 'deadlock-cmh', '--n', '5'],
    ['check', 'flood', '--faults', '9'],
    ['check', 'flood', '--bogus'],
  ])
    it(args.join(' '), () => {
      const { code, out, err } = sd(...args)
      expect(code).toBe(2)
      expect(out).toBe('')
      expect(err).not.toBe('')
    })
})

type RaceMsg = { type: 'request' } | { type: 'ok' }

/**
 * A mutex that defers a request only while it holds the resource: two nodes that ask at once
 * both get every OK and enter together (what Ricart-Agrawala's (T, pid) comparison prevents).
 */
const racyMutex: ProtocolFactory<RaceMsg, MutexRequest, unknown> = (self: NodeId) => {
  let state: 'idle' | 'wanted' | 'held' = 'idle'
  let oks = 0
  let entries = 0
  const deferred: NodeId[] = []
  const token = () => entries * 16 + Number(self)
  const protocol: Protocol<RaceMsg, MutexRequest, unknown> = {
    onRequest(req, ctx) {
      if (req.type === 'acquire' && state === 'idle') {
        state = 'wanted'
        oks = 0
        ctx.broadcast({ type: 'request' })
      } else if (req.type === 'release' && state === 'held') {
        state = 'idle'
        ctx.emit({ type: 'released', resource: 'default', token: token() })
        for (const peer of deferred.splice(0)) ctx.send(peer, { type: 'ok' })
      }
    },
    onMessage(from, msg, ctx) {
      if (msg.type === 'request') {
        if (state === 'held') deferred.push(from)
        else ctx.send(from, { type: 'ok' })
      } else if (state === 'wanted' && ++oks === ctx.peers.length) {
        state = 'held'
        entries++
        ctx.emit({ type: 'acquired', resource: 'default', token: token() })
      }
    },
  }
  return protocol
}

describe('sd check: a broken mutex is caught, and its counterexample replays', () => {
  it('the racy mutex at n = 3: two sections overlap; the shrunk schedule breaks it again', () => {
    const scenario = mutexScenario(racyMutex, 3)
    const result = explore(scenario, defaultsAt(ricartAgrawalaCheck, ricartAgrawalaCheck.defaultN))
    expect(result.counterexample).toBeDefined()
    const { message, schedule, shrunk } = result.counterexample!
    expect(message).toMatch(/in the critical section at once/)
    expect(replay(scenario, schedule).violation).toBe(message)
    const again = replay(scenario, shrunk)
    expect(again.violation).toMatch(/in the critical section at once/)
    expect(again.skipped).toEqual([])
    expect(shrunk.split(' ').length).toBeLessThanOrEqual(schedule.split(' ').length)
  })
})

describe('sd check mutex-centralized: the lock led by the majority election, its leader cut off', () => {
  it('runs its bound clean with the fix (electionToLock, leaderLease)', () => {
    const { code, out } = sd('check', 'mutex-centralized', '--json')
    expect(code, out).toBe(0)
    const result = JSON.parse(out)
    expect(result).toMatchObject({ scenario: 'mutex-centralized', n: 3, violations: [] })
    expect(result.schedules).toBe(
      defaultsAt(mutexElectionCheck, mutexElectionCheck.defaultN).maxSchedules,
    )
    expect(result.cutByDepth).toBe(0)
    // Both children restore (the election and the lock), so `compose` does: no replays.
    expect(result.executions).toBe(1)
    expect(result.restores).toBeGreaterThan(0)
  })

  it('with only `leader` wired (before issue 19): the deposed leader grants itself; the counterexample replays', () => {
    const scenario = mutexElectionScenario('leader-only')
    const result = explore(scenario, defaultsAt(mutexElectionCheck, mutexElectionCheck.defaultN))
    const { message, schedule, shrunk } = result.counterexample!
    expect(message).toMatch(/3 acquired default \(token \d+\) while 1 held it since t=70/)
    expect(replay(scenario, schedule).violation).toBe(message)
    // The shrunk schedule, then virtual-time order (sampled delays): the same overlap.
    expect(replay(scenario, shrunk).violation).toMatch(/3 acquired default .* while 1 held it/)
  })
})
