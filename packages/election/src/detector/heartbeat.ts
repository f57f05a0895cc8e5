/**
 * Heartbeat failure detection, as every algorithm of this package uses it: the leader sends a
 * heartbeat every `intervalMs`; a follower that hears nothing from it for `timeoutMs` suspects it.
 *
 * Perfect detection is impossible in an asynchronous system: a heartbeat that is only late looks
 * exactly like one that will never come. The timeout trades the time to notice a real crash for
 * the rate of false suspicions; what a false suspicion costs depends on the algorithm (see the
 * README).
 */
import { type Ctx, InvalidArgumentError } from '@sd/transport'
import { type FailureDetector, phiDetector, timeoutDetector } from './failure-detector.js'
import type { PhiAccrualSnapshot, PhiOptions, PhiSettings } from './phi-accrual.js'
import { phiSettings } from './phi-accrual.js'

export interface HeartbeatOptions {
  /** How often the leader says it is alive, ms. Default 100. */
  intervalMs?: number
  /**
   * Silence after which the leader is suspected, ms. Default 5 x intervalMs. At least
   * 2 x intervalMs, so that one lost or late heartbeat never causes a suspicion on its own.
   */
  timeoutMs?: number
  /**
   * How a follower decides the leader is gone. 'timeout' (default): after timeoutMs of silence.
   * `{ phi: {...} }`: phi accrual (see phi-accrual.ts), which learns the heartbeats' arrival
   * times; unless given, its first estimate is intervalMs and its acceptable pause
   * timeoutMs - intervalMs, so it suspects a regular stream a few deviations after timeoutMs.
   */
  detector?: 'timeout' | { phi: PhiOptions }
}

export interface HeartbeatSettings {
  intervalMs: number
  timeoutMs: number
  /** Absent: the timeout. */
  detector?: { phi: PhiSettings }
}

/** Checks the relation of interval and timeout; throws InvalidArgumentError with what to change. */
export function heartbeatSettings(options: HeartbeatOptions = {}): HeartbeatSettings {
  const intervalMs = options.intervalMs ?? 100
  if (!(Number.isFinite(intervalMs) && intervalMs > 0)) {
    throw new InvalidArgumentError(
      `heartbeat intervalMs must be a positive number, got ${intervalMs}`,
    )
  }
  const timeoutMs = options.timeoutMs ?? 5 * intervalMs
  if (!(Number.isFinite(timeoutMs) && timeoutMs >= 2 * intervalMs)) {
    throw new InvalidArgumentError(
      `heartbeat timeoutMs (${timeoutMs}) must be at least 2 x intervalMs (${2 * intervalMs}): ` +
        'with less, one late heartbeat is taken for a crash',
    )
  }
  const detector = options.detector ?? 'timeout'
  if (detector === 'timeout') return { intervalMs, timeoutMs }
  if (typeof detector !== 'object' || detector === null || !isObject(detector.phi)) {
    throw new InvalidArgumentError(
      `heartbeat detector must be 'timeout' or { phi: {...} }, got ${JSON.stringify(detector)}`,
    )
  }
  const phi = phiSettings({
    firstHeartbeatEstimateMs: intervalMs,
    acceptablePauseMs: timeoutMs - intervalMs,
    ...detector.phi,
  })
  return { intervalMs, timeoutMs, detector: { phi } }
}

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null

/** The detector the settings name. */
export function detectorOf(settings: HeartbeatSettings): FailureDetector {
  return settings.detector
    ? phiDetector(settings.detector.phi)
    : timeoutDetector(settings.timeoutMs)
}

const BEAT = 'heartbeat:beat'
const SILENCE = 'heartbeat:silence'

/**
 * The two timers of a node's heartbeat duty: sending (as leader) or listening (as follower).
 * A protocol calls `lead` / `follow` / `heard` / `stop`, and passes its timers to `onTimer`.
 */
export class LeaderWatch {
  private readonly detector: FailureDetector

  constructor(readonly settings: HeartbeatSettings) {
    this.detector = detectorOf(settings)
  }

  /**
   * Start sending heartbeats: `beat` is called now and every intervalMs until `stop` or `follow`,
   * each time with the ctx of the step it runs in (a ctx kept past its step is not the node's).
   */
  lead<Msg, Ev>(ctx: Ctx<Msg, Ev>, beat: (ctx: Ctx<Msg, Ev>) => void): void {
    ctx.cancelTimer(SILENCE)
    this.beat = beat
    beat(ctx)
    ctx.setTimer(BEAT, this.settings.intervalMs)
  }

  /** Listen for the leader: suspect it after timeoutMs of silence (the clock starts now). */
  follow<Msg, Ev>(ctx: Ctx<Msg, Ev>): void {
    ctx.cancelTimer(BEAT)
    this.beat = undefined
    const now = ctx.monotonic()
    this.detector.reset(now)
    ctx.setTimer(SILENCE, this.detector.nextCheckMs(now))
  }

  /** A heartbeat (or anything that proves the leader alive) arrived. */
  heard<Msg, Ev>(ctx: Ctx<Msg, Ev>): void {
    if (this.beat !== undefined) return
    const now = ctx.monotonic()
    this.detector.heard(now)
    ctx.setTimer(SILENCE, this.detector.nextCheckMs(now))
  }

  stop<Msg, Ev>(ctx: Ctx<Msg, Ev>): void {
    ctx.cancelTimer(BEAT)
    ctx.cancelTimer(SILENCE)
    this.beat = undefined
  }

  /**
   * Handles this watch's timers: 'suspect' when the leader fell silent, 'handled' for a beat sent,
   * undefined when `key` is not one of its timers.
   */
  onTimer<Msg, Ev>(key: string, ctx: Ctx<Msg, Ev>): 'suspect' | 'handled' | undefined {
    if (key === BEAT) {
      this.beat?.(ctx)
      if (this.beat) ctx.setTimer(BEAT, this.settings.intervalMs)
      return 'handled'
    }
    if (key !== SILENCE) return undefined
    const now = ctx.monotonic()
    if (this.detector.suspects(now)) return 'suspect'
    // Not yet: phi is short of its threshold, or this node was paused past it (localPauseMs).
    ctx.setTimer(SILENCE, this.detector.nextCheckMs(now))
    return 'handled'
  }

  /**
   * What the watch holds, as plain data: whether it is sending heartbeats (its timers are the
   * runtime's; what the beat sends is the protocol's state, e.g. the term it leads), and with
   * phi accrual the heartbeat history.
   */
  snapshot(): { leading: boolean; phi?: PhiAccrualSnapshot } {
    const phi = this.detector.snapshot()
    return phi === undefined
      ? { leading: this.beat !== undefined }
      : { leading: this.beat !== undefined, phi }
  }

  private beat: ((ctx: Ctx<unknown, unknown>) => void) | undefined
}
