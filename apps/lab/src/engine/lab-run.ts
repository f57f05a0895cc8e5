/**
 * A run in the lab: the live network, the steps taken on it and, after each step, a frame (how
 * long the trace was, virtual time, the invariant's verdict). Going back and forth along the
 * steps taken reads the frames (the trace up to step k is a prefix of the trace at any later
 * step: the run is deterministic). Choosing something else in the past branches: the network is
 * brought back to that step by re-execution from the seed and the steps, from the nearest
 * checkpoint when the run can be rewound (`Source.rewinds`), from the setup otherwise, and the
 * old line is kept to compare.
 */
import type { SimNetwork, TraceEvent } from '@sd/transport'
import { applyStep } from './apply.js'
import type { LabConfig } from './config.js'
import { makeSource, type Source } from './sources.js'
import { AUTO, formatSteps, type Step } from './steps.js'

export interface Frame {
  /** Trace entries after the step. */
  trace: number
  /** Virtual time after the step. */
  now: number
  /** The invariant after the step, when broken. */
  violation?: string
  /** The step did not apply (its event was not pending, its node already down). */
  skipped?: boolean
}

/** The network's checkpoint and what the run keeps beside it (`Source.save`), saved together. */
interface Checkpoint {
  net: NonNullable<ReturnType<SimNetwork['checkpoint']>>
  side: unknown
}

/** A checkpoint is saved every this many steps, when the run can be rewound. */
export const CHECKPOINT_EVERY = 200

export class LabRun {
  private source: Source
  private steps: Step[] = []
  private frames: Frame[]
  private readonly checkpoints = new Map<number, Checkpoint>()
  /** The step shown: 0 is the setup, `length` the last step taken. */
  position = 0
  /** Lines left by branching, as step text, newest last. */
  readonly branches: string[] = []
  /** The step each of `branches` was cut at (the new line shares the steps before it). */
  readonly branchSteps: number[] = []
  /** Re-executions from the setup, and rewinds from a checkpoint (for the tests and the page). */
  readonly stats = { rebuilds: 0, restores: 0, stepsReplayed: 0 }

  /** Steps between checkpoints (the tests take them closer). */
  private readonly checkpointEvery: number

  constructor(
    readonly config: LabConfig,
    options: { checkpointEvery?: number } = {},
  ) {
    this.checkpointEvery = options.checkpointEvery ?? CHECKPOINT_EVERY
    this.source = makeSource(config)
    this.frames = [this.frame(false)]
    this.saveCheckpoint()
    for (const step of config.steps) this.execute(step)
    this.position = this.steps.length
  }

  /** Checkpoints saved on the live line (none when the run cannot be rewound). */
  get checkpointCount(): number {
    return this.checkpoints.size
  }

  get net() {
    return this.source.net
  }

  /** Every event emitted on the live line, in order. */
  emitted() {
    return this.source.events()
  }

  get invariant(): string {
    return this.source.invariant
  }

  get ids() {
    return this.source.ids
  }

  get horizon(): number {
    return this.source.horizon
  }

  /** Steps taken on the live line. */
  get length(): number {
    return this.steps.length
  }

  /** The steps taken, as the URL writes them. */
  stepsText(upTo = this.steps.length): string {
    return formatSteps(this.steps.slice(0, upTo))
  }

  stepAt(i: number): Step | undefined {
    return this.steps[i]
  }

  frameAt(position = this.position): Frame {
    return this.frames[position]!
  }

  /** The trace as it stood at `position`. */
  traceAt(position = this.position): TraceEvent[] {
    return this.net.trace.slice(0, this.frames[position]!.trace)
  }

  /** The first step after which the invariant was broken, if any. */
  firstViolation(): number | undefined {
    const i = this.frames.findIndex((f) => f.violation !== undefined)
    return i < 0 ? undefined : i
  }

  /** Whether the live network is at the position shown (pending events can be listed). */
  get atLive(): boolean {
    return this.position === this.steps.length
  }

  /** Nothing left to happen at the live end. */
  ended(): boolean {
    return this.net.choices('any-order').length === 0
  }

  /** One step forward: along the line taken, or a new step by the run's own rule. */
  forward(): boolean {
    if (this.position < this.steps.length) {
      this.position++
      return true
    }
    if (!this.executeAuto()) return false
    this.position = this.steps.length
    return true
  }

  back(): boolean {
    if (this.position === 0) return false
    this.position--
    return true
  }

  /** Shows step `position` of the line taken (clamped). */
  goTo(position: number): void {
    this.position = Math.max(0, Math.min(this.steps.length, Math.floor(position)))
  }

  /** Runs `count` steps by the run's own rule from the live end (stops when nothing is left). */
  run(count: number, until = Number.POSITIVE_INFINITY): number {
    this.position = this.steps.length
    let done = 0
    const bounded = until !== Number.POSITIVE_INFINITY
    while (done < count) {
      if (bounded) {
        const next = this.nextTime()
        if (next === undefined || next > until) break
      }
      if (!this.executeAuto()) break
      done++
    }
    this.position = this.steps.length
    return done
  }

  /**
   * Takes `step` at the position shown: at the live end it is one more step; in the past the
   * run branches there (the steps after it are kept in `branches` and replaced).
   */
  choose(step: Step): Frame {
    if (this.position < this.steps.length) this.branchAt(this.position)
    this.execute(step)
    this.position = this.steps.length
    return this.frames[this.position]!
  }

  /** Cuts the line at `position`, keeping the old one's text, and brings the network there. */
  branchAt(position: number): void {
    if (position >= this.steps.length) return
    this.branches.push(this.stepsText())
    this.branchSteps.push(position)
    this.rewind(position)
  }

  /** The earliest time something is due, or undefined when nothing is left. */
  private nextTime(): number | undefined {
    let t: number | undefined
    for (const c of this.net.choices()) if (t === undefined || c.t < t) t = c.t
    return t
  }

  private executeAuto(): boolean {
    if (!this.source.auto()) return false
    this.record(AUTO, false)
    return true
  }

  private execute(step: Step): void {
    if (step.kind === 'auto') {
      // A step by the run's own rule with nothing left: recorded as skipped, as a stale choice.
      if (!this.source.auto()) this.record(step, true)
      else this.record(step, false)
      return
    }
    const before = this.net.now
    const applied = applyStep(this.net, step, this.source.ids)
    this.source.stepped(before)
    this.record(step, !applied)
  }

  private record(step: Step, skipped: boolean): void {
    this.steps.push(step)
    this.frames.push(this.frame(skipped))
    if (this.steps.length % this.checkpointEvery === 0) this.saveCheckpoint()
  }

  private frame(skipped: boolean): Frame {
    const violation = this.source.judge()
    return {
      trace: this.net.trace.length,
      now: this.net.now,
      ...(violation === undefined ? {} : { violation }),
      ...(skipped ? { skipped } : {}),
    }
  }

  private saveCheckpoint(): void {
    if (!this.source.rewinds) return
    const saved = this.net.checkpoint()
    if (saved !== undefined)
      this.checkpoints.set(this.steps.length, { net: saved, side: this.source.save() })
  }

  /** Brings the live network back to `position`: from a checkpoint, or from the setup. */
  private rewind(position: number): void {
    const kept = this.steps.slice(0, position)
    let from = -1
    for (const at of this.checkpoints.keys()) if (at <= position && at > from) from = at
    if (from >= 0) {
      const saved = this.checkpoints.get(from)!
      this.net.restoreCheckpoint(saved.net)
      this.source.restore(saved.side)
      this.stats.restores++
    } else {
      this.source = makeSource(this.config)
      from = 0
      this.stats.rebuilds++
      this.checkpoints.clear()
      this.saveCheckpoint()
    }
    for (const at of [...this.checkpoints.keys()]) if (at > from) this.checkpoints.delete(at)
    this.steps = kept.slice(0, from)
    this.frames.length = from + 1
    for (const step of kept.slice(from)) {
      this.execute(step)
      this.stats.stepsReplayed++
    }
    this.position = this.steps.length
  }
}
