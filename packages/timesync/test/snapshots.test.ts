import type { NodeId, ProtocolFactory } from '@sd/transport'
import { runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { seedList } from '../../../test-support/seeds.js'
import {
  expectSoundSnapshots,
  recordingSnapshots,
  text,
} from '../../../test-support/snapshot-contract.js'
import { berkeley } from '../src/berkeley/protocol.js'
import { DisciplinedClock } from '../src/clock/disciplined.js'
import { cristian } from '../src/cristian/protocol.js'
import { ntpSim } from '../src/ntp-sim/protocol.js'
import { temporalOrder } from '../src/temporal/protocol.js'

const IDS: NodeId[] = [1, 2, 3]
type Any = ProtocolFactory<unknown, { type: string; payload?: unknown }, unknown>
const sync = { type: 'sync' }

const protocols: [string, Any, (node: NodeId, k: number) => { type: string; payload?: string }][] =
  [
    ['cristian', (self) => cristian({ server: 1, samples: 3 })(self), () => sync],
    ['berkeley', (self) => berkeley({ master: 1 })(self), () => sync],
    ['ntp-sim', (self) => ntpSim({ servers: [1, 2], pollMs: 200 })(self), () => sync],
    [
      'temporal',
      (self) => temporalOrder<string>({ holdBackMs: 30 })(self),
      (node, k) => ({ type: 'broadcast', payload: `${String(node)}.${k}` }),
    ],
  ]

describe.each(protocols)('%s snapshots in simulated runs', (_name, factory, request) => {
  /** A seeded run with requests at several nodes and times; each node's snapshots. */
  const run = (seed: number) => {
    const rec = recordingSnapshots(factory)
    runInSim(IDS, rec.factory, {
      seed,
      net: { latency: { kind: 'uniform', min: 1, max: 20 }, fifo: false, trace: false },
      until: 1_000,
      plan: (_net, group) => {
        for (let k = 0; k < 4; k++) group.request(IDS[(seed + k) % 3]!, request(k, k), 50 + 97 * k)
      },
    })
    return rec
  }

  it('are plain, unshared and deterministic after every step, over many seeds', () => {
    expectSoundSnapshots(seedList(25), run)
  })
})

describe('the disciplined clock in a snapshot', () => {
  it('is plain before its first reading (no -Infinity), and a reading or a correction changes it', () => {
    const clock = new DisciplinedClock()
    const fresh = text(clock.snapshot())
    expect(JSON.parse(fresh)).toEqual(clock.snapshot())
    clock.read(10)
    const read = text(clock.snapshot())
    expect(read).not.toBe(fresh)
    clock.adjust(20, 5)
    expect(text(clock.snapshot())).not.toBe(read)
  })
})
