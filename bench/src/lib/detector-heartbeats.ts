/**
 * All-to-all heartbeats for the failure-detector benchmark: every node sends a heartbeat to every
 * other node each `intervalMs`, and watches every other node with several detectors at once, all
 * fed by the same arrivals (so the sweep of their knobs costs one simulation, and every setting
 * sees exactly the same network):
 *
 * - `timeout`: suspect after `timeoutMs` of silence (the rule of @sd/election's `LeaderWatch` /
 *   `timeoutDetector`, applied to every peer).
 * - `phi`: phi accrual with the package's arithmetic (`silenceForPhi`: the silence at which phi
 *   reaches the threshold), over a window of inter-arrival times kept incrementally (running sums,
 *   the same mean and population deviation as `PhiAccrual`, O(1) per heartbeat instead of a pass
 *   over the window, which n² watches could not afford).
 *   With `localPauseMs`, the package's rule for a check that runs late (`PhiAccrual.check`): a
 *   deadline passed more than that before the timer ran means the node was paused; the silence
 *   since the deadline is taken off the peer's account (once per heartbeat) and the node looks
 *   again 1 ms later, after the backlog.
 * - `node-discover`: a model of node-discover's rule (not the library): a peer is dropped when a
 *   check, every `checkMs` at the node's own phase, finds its last hello older than `timeoutMs`;
 *   re-added at its next hello.
 *
 * One lazy timer per watched peer, set for the earliest deadline of the settings not yet
 * suspecting it; a heartbeat moves the deadlines later without touching the timer unless one
 * moved earlier. The timer fires late when the node is paused (its backlog runs at resume, in the
 * order it came due), as a real event loop's timers do after a GC pause.
 */
import { silenceForPhi } from '@sd/election'
import type { Ctx, NodeId } from '@sd/transport'
import type { VerdictTracker } from './detector-verdicts.js'

export type HeartbeatSetting =
  | { family: 'heartbeat'; timeoutMs: number }
  | {
      family: 'phi'
      threshold: number
      acceptablePauseMs: number
      /** PhiOptions.localPauseMs: absent, never (the package's default). */
      localPauseMs?: number
    }
  | { family: 'node-discover'; checkMs: number; timeoutMs: number }

export interface HeartbeatRig {
  intervalMs: number
  settings: readonly HeartbeatSetting[]
  /** Phi: inter-arrival times kept (the package's default is 200), floor of the deviation (25). */
  phiWindow: number
  phiMinStdDevMs: number
  /** Where verdicts go: the simulator's tracker, or a real worker's log (only `set` is called). */
  tracker: Pick<VerdictTracker, 'set'>
}

type Hb = { type: 'hb' }
const HB: Hb = { type: 'hb' }
const BEAT = 'beat'
const CHECK = 'check'

export function heartbeatMonitor(rig: HeartbeatRig, n: number) {
  const { intervalMs, settings, tracker } = rig
  const k = settings.length
  const ndCheckMs = settings.find((s) => s.family === 'node-discover')?.checkMs
  // The silence at which phi reaches the threshold is mean + y * stdDev, y a function of the
  // threshold alone: worked out once per setting.
  const phiY = settings.map((s) => (s.family === 'phi' ? silenceForPhi(s.threshold, 0, 1) : 0))
  const peerTimer = Array.from({ length: n }, (_, i) => `w${i}`)
  const cap = rig.phiWindow

  return (self: NodeId) => {
    const me = self as number
    const since = new Float64Array(n) // last heartbeat, or the start
    const last = new Float64Array(n).fill(Number.NaN) // last heartbeat
    const armedAt = new Float64Array(n).fill(Number.NaN)
    const suspected = new Uint8Array(k * n)
    // localPauseMs: the silence taken off the peer's account since its last heartbeat.
    const excused = new Float64Array(k * n)
    const ring = new Float32Array(n * cap)
    const head = new Int32Array(n)
    const count = new Int32Array(n)
    const sum = new Float64Array(n)
    const sumSq = new Float64Array(n)

    // Phi's mean and deviation for peer p (the window's, or the first estimate), floored.
    let mean = 0
    let std = 0
    const stats = (p: number) => {
      const c = count[p]!
      mean = intervalMs // firstHeartbeatEstimateMs: the interval
      std = intervalMs / 4
      if (c > 0) {
        mean = sum[p]! / c
        std = Math.sqrt(Math.max(0, sumSq[p]! / c - mean * mean))
      }
      std = Math.max(std, rig.phiMinStdDevMs)
    }
    /** When setting s suspects p if nothing comes; stats(p) first. */
    const deadline = (s: number, p: number): number => {
      const setting = settings[s]!
      if (setting.family === 'heartbeat') return since[p]! + setting.timeoutMs
      if (setting.family === 'node-discover') return Number.POSITIVE_INFINITY // its check timer
      return since[p]! + excused[s * n + p]! + mean + setting.acceptablePauseMs + phiY[s]! * std
    }
    /** Setting s's deadline for p passed at `now`: suspect, unless the node was paused past it. */
    const judge = (s: number, p: number, now: number) => {
      const setting = settings[s]!
      const late = now - deadline(s, p)
      const pause = setting.family === 'phi' ? setting.localPauseMs : undefined
      // As PhiAccrual.excuse: once per heartbeat, never before the first.
      if (pause !== undefined && late > pause && excused[s * n + p] === 0 && last[p] === since[p]) {
        excused[s * n + p] = late
        return
      }
      suspect(s, p)
    }
    const earliest = (p: number): number => {
      stats(p)
      let min = Number.POSITIVE_INFINITY
      for (let s = 0; s < k; s++) {
        if (suspected[s * n + p] === 0) min = Math.min(min, deadline(s, p))
      }
      return min
    }
    const arm = (ctx: Ctx<Hb>, p: number, at: number, now: number) => {
      if (!Number.isFinite(at)) return
      armedAt[p] = at
      ctx.setTimer(peerTimer[p]!, Math.max(1, Math.ceil(at - now)))
    }
    const suspect = (s: number, p: number) => {
      suspected[s * n + p] = 1
      tracker.set(s, me, p, true)
    }

    return {
      start(ctx: Ctx<Hb>) {
        const now = ctx.monotonic()
        for (const peer of ctx.peers) {
          const p = peer as number
          since[p] = now
          arm(ctx, p, earliest(p), now)
        }
        // Random phases: the nodes did not all start in the same millisecond.
        ctx.setTimer(BEAT, 1 + Math.floor(ctx.random() * intervalMs))
        if (ndCheckMs !== undefined) ctx.setTimer(CHECK, 1 + Math.floor(ctx.random() * ndCheckMs))
      },
      onMessage(from: NodeId, _msg: Hb, ctx: Ctx<Hb>) {
        const p = from as number
        const now = ctx.monotonic()
        const prev = last[p]!
        if (!Number.isNaN(prev)) {
          const gap = now - prev
          if (count[p] === cap) {
            const old = ring[p * cap + head[p]!]!
            sum[p]! -= old
            sumSq[p]! -= old * old
          } else count[p]!++
          ring[p * cap + head[p]!] = gap
          head[p] = (head[p]! + 1) % cap
          sum[p]! += gap
          sumSq[p]! += gap * gap
        }
        last[p] = now
        since[p] = now
        for (let s = 0; s < k; s++) excused[s * n + p] = 0
        for (let s = 0; s < k; s++) {
          if (suspected[s * n + p] === 1) {
            suspected[s * n + p] = 0
            tracker.set(s, me, p, false)
          }
        }
        const next = earliest(p)
        if (Number.isNaN(armedAt[p]!) || next < armedAt[p]!) arm(ctx, p, next, now)
      },
      onTimer(key: string, ctx: Ctx<Hb>) {
        const now = ctx.monotonic()
        if (key === BEAT) {
          ctx.broadcast(HB)
          ctx.setTimer(BEAT, intervalMs)
          return
        }
        if (key === CHECK) {
          for (let s = 0; s < k; s++) {
            const setting = settings[s]!
            if (setting.family !== 'node-discover') continue
            for (const peer of ctx.peers) {
              const p = peer as number
              if (suspected[s * n + p] === 0 && now - since[p]! > setting.timeoutMs) suspect(s, p)
            }
          }
          ctx.setTimer(CHECK, ndCheckMs!)
          return
        }
        const p = Number(key.slice(1))
        armedAt[p] = Number.NaN
        stats(p)
        for (let s = 0; s < k; s++) {
          if (suspected[s * n + p] === 0 && deadline(s, p) <= now) judge(s, p, now)
        }
        arm(ctx, p, earliest(p), now)
      },
    }
  }
}
