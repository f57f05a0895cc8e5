import { type NodeId, SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../../test-support/seeds.js'
import type { AdjustedEvent } from '../../src/contract.js'
import { cristian } from '../../src/cristian/protocol.js'
import { IntervalClock, sampleFromAdjusted } from '../../src/interval/index.js'
import { ntpSim } from '../../src/ntp-sim/protocol.js'

const SERVER = 1
const CLIENT = 2

interface Outcome {
  reads: number
  synchronizedReads: number
  stepsPlanned: number
  stepsSeen: number
  refusedSyncs: number
}

interface FedOptions {
  until: number
  /** Steps come this far apart, plus up to 3 s. */
  stepEveryMs: number
  epsilonMs: number
  loss: number
}

/**
 * The client's interval clock fed by a synchronizer's `adjusted` events, read every few ms of the
 * run: whenever it says synchronized, the server's clock (true time) is inside the interval. The
 * client's wall clock is stepped now and then, which must be seen every time.
 */
function runFed(
  seed: number,
  launch: (net: SimNetwork, onAdjusted: (node: NodeId, event: AdjustedEvent) => void) => void,
  options: FedOptions,
): Outcome {
  const { until, stepEveryMs, epsilonMs, loss } = options
  const net = new SimNetwork({ seed, latency: { kind: 'uniform', min: 1, max: 8 }, loss })
  let r = seed
  const random = () => {
    r = (r * 1103515245 + 12345) % 2147483648
    return r / 2147483648
  }
  // The synchronizers assume drift within 1e-4; the interval clock is told the same (100 ppm).
  const drift = (seed % 2 === 0 ? Math.sign(random() - 0.5) : 2 * random() - 1) * 1e-4
  net.addNode(SERVER, { offset: 0, drift: 0 })
  net.addNode(CLIENT, { offset: (2 * random() - 1) * 300, drift })
  const clock = new IntervalClock({ maxDriftPpm: 100, maxSyncAgeMs: 6_000 })
  const reading = () => ({ monotonicMs: net.monotonicOf(CLIENT), wallMs: net.clockOf(CLIENT) })
  const outcome: Outcome = {
    reads: 0,
    synchronizedReads: 0,
    stepsPlanned: 0,
    stepsSeen: 0,
    refusedSyncs: 0,
  }
  launch(net, (node, event) => {
    if (node !== CLIENT) return
    const mono = net.monotonicOf(CLIENT)
    if (!clock.sync(sampleFromAdjusted(event, mono), reading())) outcome.refusedSyncs++
  })
  for (let t = 1; t < until; t += 1 + Math.floor(random() * 40)) {
    net.at(t, () => {
      const interval = clock.read(reading())
      outcome.reads++
      if (!interval.synchronized) return
      outcome.synchronizedReads++
      const serverTime = net.clockOf(SERVER)
      expect(serverTime).toBeGreaterThanOrEqual(interval.earliest - epsilonMs)
      expect(serverTime).toBeLessThanOrEqual(interval.latest + epsilonMs)
    })
  }
  for (
    let t = stepEveryMs + 500;
    t < until - 1_000;
    t += stepEveryMs + Math.floor(random() * 3_000)
  ) {
    const delta = Math.sign(random() - 0.5) * (10 + random() * 10_000)
    outcome.stepsPlanned++
    net.at(t + 0.5, () => net.stepClock(CLIENT, delta))
  }
  net.run({ until })
  outcome.stepsSeen = clock.steps
  return outcome
}

describe('IntervalClock fed by the package’s synchronizers in the simulator', () => {
  it('Cristian: the server’s time is inside the interval at every synchronized read', () => {
    let synchronizedReads = 0
    forSeeds(seedList(40), (seed) => {
      const outcome = runFed(
        seed,
        (net, onAdjusted) =>
          net.launch(
            [SERVER, CLIENT],
            cristian({ server: SERVER, samples: 3, sampleTimeoutMs: 30, periodMs: 1_500 }),
            { onEmit: (node, event) => event.type === 'adjusted' && onAdjusted(node, event) },
          ),
        { until: 20_000, stepEveryMs: 2_000, epsilonMs: 1e-9, loss: 0.1 },
      )
      expect(outcome.stepsSeen).toBe(outcome.stepsPlanned)
      expect(outcome.synchronizedReads).toBeGreaterThan(outcome.reads / 2)
      synchronizedReads += outcome.synchronizedReads
    })
    expect(synchronizedReads).toBeGreaterThan(10_000)
  })

  it('NTP (ntpSim, the real packets): the server’s time is inside the interval at every synchronized read', () => {
    let synchronizedReads = 0
    forSeeds(seedList(20), (seed) => {
      const outcome = runFed(
        seed,
        (net, onAdjusted) =>
          net.launch([SERVER, CLIENT], ntpSim({ servers: [SERVER], pollMs: 1_000 }), {
            onEmit: (node, event) => event.type === 'adjusted' && onAdjusted(node, event),
          }),
        {
          // Its offsets are measured on the wall clock, but it flushes its clock filter when that
          // steps: no `adjusted` uses a sample from before a step, so none needs refusing.
          loss: 0.1,
          until: 45_000,
          stepEveryMs: 12_000,
          // ntpSim's own test allows 1e-6 ms of rounding in its bound (NTP's 32-bit fractions).
          epsilonMs: 1e-6,
        },
      )
      expect(outcome.stepsSeen).toBe(outcome.stepsPlanned)
      expect(outcome.refusedSyncs).toBe(0)
      expect(outcome.synchronizedReads).toBeGreaterThan(outcome.reads / 4)
      synchronizedReads += outcome.synchronizedReads
    })
    expect(synchronizedReads).toBeGreaterThan(5_000)
  })
})
