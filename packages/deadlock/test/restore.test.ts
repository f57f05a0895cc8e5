/**
 * `resourceManager()`'s restore(), under each strategy: checkSnapshots restores every state it
 * reaches into a fresh instance and runs it beside the original. Site 1 runs two processes (one
 * takes r2, at site 2, before r1, here: its release order is not the resources' order), owns r1
 * and r3, and hears grants, notices, probes and the centralized detector's rounds.
 */
import type { NodeId, ProtocolFactory, Random } from '@sd/transport'
import { InvalidArgumentError } from '@sd/transport'
import { checkSnapshots, type SnapshotInput } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { type ResourceManagerOptions, resourceManager } from '../src/manager/index.js'

type Any = SnapshotInput<never, unknown>
type At = { self: NodeId; peers: readonly NodeId[]; timers: readonly string[] }

const pick = <T>(random: Random, xs: readonly T[]): T => xs[random.int(0, xs.length - 1)]!

const RESOURCES = { r1: 1, r2: 2, r3: 1 }
const PROCESSES = [
  { id: 'a', home: 1, steps: [{ acquire: 'r2' }, { acquire: 'r1' }, { work: 5 }] },
  { id: 'b', home: 1, steps: [{ acquire: 'r3' }, { acquire: 'r2' }, { work: 5 }] },
]

function inputs(random: Random, at: At): Any {
  const roll = random.int(0, 19)
  if (roll === 0) return { kind: 'request', req: { type: 'detect' } }
  if (roll <= 4 && at.timers.length > 0) return { kind: 'timer', key: pick(random, at.timers) }
  const from = pick(random, at.peers)
  const req = random.int(1, 2)
  const mine = pick(random, ['a', 'b'])
  const theirs = pick(random, ['c', 'd'])
  const ref = (id: string, home: NodeId) => ({ id, home, timestamp: random.int(0, 1) })
  const any = pick(random, [ref(mine, 1), ref(theirs, from)])
  const resource = pick(random, ['r1', 'r2', 'r3'])
  const round = random.int(1, 2)
  const wait = {
    from: ref(theirs, from),
    to: ref(mine, 1),
    resource: 'r1',
    id: `r1|${theirs}#1|${mine}#1`,
  }
  const entry = (id: string, home: NodeId, r: string) => ({
    ref: ref(id, home),
    req,
    resource: r,
    heldReq: random.int(-1, 1),
  })
  const msgs = [
    // This site as the processes' home.
    { type: 'lock-grant', process: mine, resource, req },
    { type: 'lock-blocked', process: mine, resource, req, holder: any, seq: random.int(1, 3) },
    { type: 'lock-die', process: mine, resource, req },
    { type: 'wound', process: mine, resource, req },
    { type: 'abort', process: mine },
    // This site as the owner of r1 and r3.
    { type: 'lock-request', proc: ref(theirs, from), resource: pick(random, ['r1', 'r3']), req },
    { type: 'lock-release', process: theirs, resource: pick(random, ['r1', 'r3']), req },
    // Detection.
    {
      type: 'probe',
      initiator: mine,
      computation: random.int(1, 2),
      sender: theirs,
      receiver: pick(random, ['a', 'b']),
      resource: pick(random, ['r2', 'r3']),
      path: [entry(mine, 1, 'r2'), entry(theirs, from, 'r1')],
    },
    { type: 'verify', path: [entry(mine, 1, 'r2'), entry(theirs, from, 'r1')], index: 0 },
    { type: 'collect', round },
    { type: 'local-waits', round, waits: random.int(0, 1) === 0 ? [] : [wait] },
    { type: 'confirm', round, ids: [wait.id] },
    { type: 'confirmed', round, present: random.int(0, 1) === 0 ? [] : [wait.id] },
  ]
  return { kind: 'message', from, msg: pick(random, msgs) as never }
}

const STRATEGIES: Array<[string, ResourceManagerOptions['strategy']]> = [
  ['chandy-misra-haas', { kind: 'chandy-misra-haas' }],
  ['centralized', { kind: 'centralized', coordinator: 1, periodMs: 15 }],
  ['centralized, no confirmation', { kind: 'centralized', coordinator: 1, confirm: false }],
  ['wait-die', { kind: 'prevention', rule: 'wait-die' }],
  ['wound-wait', { kind: 'prevention', rule: 'wound-wait' }],
]

describe('resourceManager(): restore() (checkSnapshots restores every state reached)', () => {
  for (const [name, strategy] of STRATEGIES) {
    it(name, () => {
      const factory = resourceManager({
        resources: RESOURCES,
        processes: PROCESSES,
        strategy,
      })
      const report = checkSnapshots(factory as unknown as ProtocolFactory<never, unknown>, {
        seeds: 10,
        inputs,
      })
      expect(report.restored).toBe(report.states)
      expect(report.restored).toBeGreaterThan(500)
    })
  }

  it('refuses a snapshot of another shape with InvalidArgumentError', () => {
    const node = resourceManager({ resources: RESOURCES, strategy: { kind: 'none' } })(1)
    expect(() => node.restore?.({ home: [] })).toThrow(InvalidArgumentError)
    expect(() => node.restore?.({ home: 3, resources: {}, cmh: null, central: null })).toThrow(
      /the processes as a list/,
    )
  })
})
