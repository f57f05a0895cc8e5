/**
 * `quorumMutex()`'s restore(): checkSnapshots restores every state it reaches into a fresh
 * instance and runs it beside the original. Node 1 is a client and a coordinator; its peers
 * grant, deny and query its rounds, and ask and release grants of their own.
 */
import type { NodeId, Protocol, ProtocolFactory, Random } from '@sd/transport'
import { InvalidArgumentError } from '@sd/transport'
import { checkSnapshots, type SnapshotInput } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { quorumMutex } from '../src/quorum/index.js'

type Any = SnapshotInput<never, unknown>
type At = { self: NodeId; peers: readonly NodeId[]; timers: readonly string[] }

const pick = <T>(random: Random, xs: readonly T[]): T => xs[random.int(0, xs.length - 1)]!
/** The session every instance draws at its start (see `fixedSession`). */
const SESSION = 2 ** 31

/** The node's session is drawn from `ctx.random` at its start: fixed, so peers' answers name it. */
function fixedSession(factory: ProtocolFactory<never, unknown>): ProtocolFactory<never, unknown> {
  return (self) => {
    const inner: Protocol<never, unknown> = factory(self)
    return { ...inner, start: (ctx) => inner.start?.({ ...ctx, random: () => 0.5 }) }
  }
}

function inputs(random: Random, at: At): Any {
  const roll = random.int(0, 9)
  const resource = pick(random, ['default', 'x'])
  if (roll === 0) return { kind: 'request', req: { type: 'acquire', resource } }
  if (roll === 1) return { kind: 'request', req: { type: 'release', resource } }
  if (roll <= 3 && at.timers.length > 0) return { kind: 'timer', key: pick(random, at.timers) }
  const from = pick(random, at.peers)
  const attempt = random.int(0, 2)
  const mine = { resource, session: SESSION, attempt }
  const theirs = { resource, session: random.int(1, 2), attempt }
  const token = random.int(0, 2) * 65536 + 2
  const msgs = [
    { type: 'grant', ...mine, counter: random.int(1, 3) },
    { type: 'deny', ...mine },
    { type: 'query', ...mine },
    { type: 'request', ...theirs, token },
    { type: 'release', ...theirs, token },
  ]
  return { kind: 'message', from, msg: pick(random, msgs) as never }
}

describe('quorumMutex(): restore() (checkSnapshots restores every state reached)', () => {
  for (const durableGrants of [false, true]) {
    it(durableGrants ? 'durable grants' : 'grants in memory', () => {
      const factory = quorumMutex({ coordinators: [1, 2, 3], durableGrants })
      const report = checkSnapshots(fixedSession(factory as ProtocolFactory<never, unknown>), {
        seeds: 10,
        inputs,
      })
      expect(report.restored).toBe(report.states)
      expect(report.restored).toBeGreaterThan(500)
      expect(report.comparedPairs).toBeGreaterThan(0)
    })
  }

  it('refuses a snapshot of another shape with InvalidArgumentError', () => {
    const node = quorumMutex({ coordinators: ['a', 'b', 'c'] })('a')
    expect(() => node.restore?.({ client: null })).toThrow(InvalidArgumentError)
    expect(() => node.restore?.('state')).toThrow(/restore\(\) takes the object/)
  })
})
