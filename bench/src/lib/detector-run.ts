/**
 * One simulated run of the failure-detector benchmark: n nodes, a network condition (loss, or
 * simulated GC pauses), a steady window in which every verdict on a live node is a false
 * positive, then crashes one at a time, each given `gapMs` to be detected by every live node.
 * Bounded by virtual time and by an event budget (a run that spends it stops, marked truncated).
 */
import { type SwimEvent, type SwimOptions, swim } from '@sd/election'
import { createRandom, type NodeId, SimNetwork } from '@sd/transport'
import { type HeartbeatSetting, heartbeatMonitor } from './detector-heartbeats.js'
import { VerdictTracker } from './detector-verdicts.js'

export interface Condition {
  name: string
  loss: number
  /** Every node pauses (runs nothing, then its backlog) for 50-200 ms every 2-6 s. */
  pauses: boolean
}

/** The pause condition's schedule, ms: the first pause, the gap to the next, a pause's length. */
export const PAUSES = { first: [0, 6000], every: [2000, 6000], length: [50, 200] } as const

export const CONDITIONS: readonly Condition[] = [
  { name: 'loss0', loss: 0, pauses: false },
  { name: 'loss1', loss: 0.01, pauses: false },
  { name: 'loss5', loss: 0.05, pauses: false },
  { name: 'pause', loss: 0, pauses: true },
]

export interface Plan {
  n: number
  seed: number
  /** Before the steady window: detectors learn, memberships settle. */
  warmMs: number
  /** The steady window: false positives are counted here, and messages. */
  steadyMs: number
  crashes: number
  /** Time each crash gets before the next (a detection later than this is missed). */
  gapMs: number
  eventBudget: number
}

export interface RunOutcome {
  tracker: VerdictTracker
  messagesPerNodePerSecond: number
  /** Node-hours of the steady window: the denominator of the false-positive rates. */
  nodeHours: number
  virtualMs: number
  events: number
  truncated: boolean
}

type Launch = (net: SimNetwork, ids: NodeId[], tracker: VerdictTracker) => void

function run(plan: Plan, condition: Condition, settings: number, launch: Launch): RunOutcome {
  const { n, seed } = plan
  const net = new SimNetwork({
    seed,
    trace: false,
    latency: { kind: 'uniform', min: 1, max: 5 },
    loss: condition.loss,
  })
  const tracker = new VerdictTracker(n, settings, () => net.now)
  const steadyEnd = plan.warmMs + plan.steadyMs
  tracker.window = { from: plan.warmMs, to: steadyEnd }
  const ids = Array.from({ length: n }, (_, i) => i)
  launch(net, ids, tracker)

  const end = steadyEnd + plan.crashes * plan.gapMs
  const rnd = createRandom(`detector-bench/${seed}/${condition.name}`)
  if (condition.pauses) {
    for (const id of ids) {
      for (let t = rnd.int(...PAUSES.first); t < end; t += rnd.int(...PAUSES.every)) {
        const ms = rnd.int(...PAUSES.length)
        net.at(t, () => net.pause(id))
        net.at(t + ms, () => net.resume(id))
      }
    }
  }
  const alive = [...ids]
  for (let i = 0; i < plan.crashes; i++) {
    const victim = alive.splice(rnd.int(0, alive.length - 1), 1)[0]!
    net.at(steadyEnd + i * plan.gapMs, () => {
      tracker.crash(victim as number)
      net.crash(victim)
    })
  }
  let sentAtStart = 0
  let sentAtEnd = 0
  net.at(plan.warmMs, () => {
    sentAtStart = net.stats.sent
  })
  net.at(steadyEnd, () => {
    sentAtEnd = net.stats.sent
  })

  let events = 0
  let truncated = false
  while (net.now < end) {
    const left = plan.eventBudget - events
    if (left <= 0) {
      truncated = true
      break
    }
    try {
      events += net.run({ until: Math.min(net.now + 1000, end), maxEvents: left }).events
    } catch {
      truncated = true // the budget ran out inside this slice
      break
    }
  }
  return {
    tracker,
    messagesPerNodePerSecond: (sentAtEnd - sentAtStart) / n / (plan.steadyMs / 1000),
    nodeHours: (n * plan.steadyMs) / 3_600_000,
    virtualMs: net.now,
    events,
    truncated,
  }
}

/** All-to-all heartbeats watched by every setting at once (tracker setting i = settings[i]). */
export function runHeartbeats(
  plan: Plan,
  condition: Condition,
  rig: { intervalMs: number; settings: readonly HeartbeatSetting[]; phiWindow: number },
): RunOutcome {
  return run(plan, condition, rig.settings.length, (net, ids, tracker) => {
    const factory = heartbeatMonitor({ ...rig, phiMinStdDevMs: 25, tracker }, plan.n)
    net.launch(ids, factory)
  })
}

/** SWIM with these options; tracker setting 0: suspected (or dead), 1: declared dead. */
export function runSwim(plan: Plan, condition: Condition, options: SwimOptions): RunOutcome {
  return run(plan, condition, 2, (net, ids, tracker) => {
    net.launch(ids, swim(options), {
      onEmit: (by, event: SwimEvent) => {
        const observer = by as number
        if (event.type === 'suspect') tracker.set(0, observer, event.node as number, true)
        else if (event.type === 'dead') {
          tracker.set(0, observer, event.node as number, true)
          tracker.set(1, observer, event.node as number, true)
        } else if (event.type === 'alive') {
          tracker.set(0, observer, event.node as number, false)
          tracker.set(1, observer, event.node as number, false)
        }
      },
    })
  })
}
