/**
 * The chaos script: the faults of --chaos in order (or, with --shuffle, each round in a seeded
 * random order), round after round while the run has time for the next one (or --rounds of
 * them), with a leader agreed by a majority and a moment of calm between two faults.
 */
import { type ChaosKind, NETNS_ONLY } from '../args.js'
import { DEFAULT_TIMINGS, leaseBoundMs } from '../node/protocol.js'
import type { FaultRecord } from '../summary.js'
import { sleep, until } from '../wait.js'
import { machineNow } from '../wire.js'
import { clockStep } from './clock-step.js'
import { type ChaosContext, type Fault, SETTLE_TIMEOUT_MS } from './context.js'
import { TRAP_TIMEOUT_MS } from './holder-trap.js'
import { killHolder } from './kill-holder.js'
import { killLeader } from './kill-leader.js'
import { killRandom } from './kill-random.js'
import { loss } from './loss.js'
import { partition } from './partition.js'
import { pauseHolder } from './pause-holder.js'
import { pauseLeader } from './pause-leader.js'

/** Calm between two faults. */
const SETTLE_MS = 1000

const FAULTS: Record<ChaosKind, Fault> = {
  'kill-leader': killLeader,
  'kill-holder': killHolder,
  'kill-random': killRandom,
  'pause-leader': pauseLeader,
  'pause-holder': pauseHolder,
  'clock-step': clockStep,
  loss,
  partition,
}

/** Plays the script until `deadline` (machine ms); every fault played or skipped is in `faults`. */
export async function playChaos(
  ctx: ChaosContext,
  faults: FaultRecord[],
  deadline: number,
): Promise<void> {
  const o = ctx.o
  const pauseMs = Math.max(o.faultMs, leaseBoundMs(DEFAULT_TIMINGS) + 1000)
  const needs: Record<ChaosKind, number> = {
    'kill-leader': o.faultMs,
    'kill-holder': o.faultMs + TRAP_TIMEOUT_MS / 4,
    'kill-random': o.faultMs,
    'pause-leader': pauseMs,
    'pause-holder': pauseMs + TRAP_TIMEOUT_MS / 4,
    'clock-step': o.faultMs,
    partition: o.faultMs,
    // In the background, but over before the run ends.
    loss: o.faultMs,
  }
  await sleep(Math.min(1500, o.seconds * 100))
  const playable = o.chaos.filter((kind) => {
    if (ctx.hosts.mode === 'netns' || !NETNS_ONLY.has(kind)) return true
    faults.push({ kind, targets: [], skipped: 'needs network namespaces (root, ip, nft)' })
    ctx.note(`${kind} skipped: it needs network namespaces (run as root with ip and nft)`)
    return false
  })
  // Round after round (or --rounds of them), each fault only if the run has time for it.
  for (let round = 1; o.rounds === 0 || round <= o.rounds; round++) {
    let played = false
    let lossPlayed = false
    for (const kind of o.shuffle ? shuffled(playable, ctx.random) : playable) {
      if (machineNow() + needs[kind] + 500 > deadline) {
        if (round === 1) {
          faults.push({ kind, targets: [], skipped: 'not enough time left' })
          ctx.note(`${kind} skipped: not enough time left`)
        }
        continue
      }
      // Loss runs in the background and takes no time here (the next faults happen under it).
      if (kind === 'loss' && ctx.network.lossOn) continue
      const record: FaultRecord = { kind, targets: [] }
      faults.push(record)
      await FAULTS[kind](ctx, record, pauseMs)
      if (kind === 'loss') {
        lossPlayed = true
        continue
      }
      played = true
      // Before the next fault: a leader again, and a moment of calm.
      ctx.status(`${kind} done; settling`)
      await until(
        () =>
          ctx.cluster.currentLeader() !== undefined && ctx.cluster.pendingFailover === undefined,
        SETTLE_TIMEOUT_MS,
      )
      await sleep(Math.min(SETTLE_MS, Math.max(0, deadline - machineNow() - 500)))
    }
    if (!played && !lossPlayed) break
    if (!played) {
      // A round of loss alone: its episode ends and the links settle before the next one, as
      // every other fault's does.
      await until(() => !ctx.network.lossOn, o.faultMs + 1000)
      ctx.status('loss done; settling')
      await sleep(Math.min(SETTLE_MS, Math.max(0, deadline - machineNow() - 500)))
    }
  }
}

/** The faults in a seeded random order (Fisher-Yates). */
function shuffled(kinds: readonly ChaosKind[], random: () => number): ChaosKind[] {
  const out = [...kinds]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}
