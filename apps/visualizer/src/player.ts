/// <reference lib="dom" />
import { type Playback, playFrom, START, scrubTo, stepBackward, stepForward } from './playback.js'

/**
 * The playback's controls and its timer: each control takes the run to the position
 * `playback.ts` computes, and play steps on a timer at the speed chosen until the last stop.
 * Every control but play stops playing first.
 */

export interface PlayerHost {
  /** The playback of the run open, if one is. */
  playback(): Playback | undefined
  /** Shows the run up to timeline seq `now`. */
  show(now: number): void
}

export class Player {
  private timer: ReturnType<typeof setInterval> | undefined

  constructor(
    private readonly button: HTMLButtonElement,
    /** Steps per second. */
    private readonly speed: () => number,
    private readonly host: PlayerHost,
  ) {}

  get playing(): boolean {
    return this.timer !== undefined
  }

  readonly toStart = (): void => {
    this.stop()
    this.host.show(START)
  }

  readonly back = (): void => {
    this.stop()
    const p = this.host.playback()
    if (p) this.host.show(stepBackward(p))
  }

  readonly step = (): void => {
    this.stop()
    this.advance()
  }

  readonly toEnd = (): void => {
    this.stop()
    const p = this.host.playback()
    if (p) this.host.show(p.end)
  }

  /** The scrubber at `position` (0 to the number of stops). */
  readonly scrub = (position: number): void => {
    const p = this.host.playback()
    if (!p) return
    this.stop()
    this.host.show(scrubTo(p, position))
  }

  /** Play, or pause while playing. */
  readonly toggle = (): void => {
    const p = this.host.playback()
    if (!p) return
    if (this.playing) {
      this.stop()
      return
    }
    const from = playFrom(p)
    if (from !== undefined) this.host.show(from)
    this.button.textContent = '❚❚ Pause'
    this.button.setAttribute('aria-pressed', 'true')
    this.timer = setInterval(() => {
      if (!this.advance()) this.stop()
    }, 1000 / this.speed())
  }

  /** A new speed takes effect at once: playing restarts its timer. */
  readonly speedChanged = (): void => {
    if (this.playing) {
      this.stop()
      this.toggle()
    }
  }

  readonly stop = (): void => {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    this.button.textContent = '▶ Play'
    this.button.setAttribute('aria-pressed', 'false')
  }

  /** One step forward; false when there was none left. */
  private advance(): boolean {
    const p = this.host.playback()
    if (!p) return false
    const { now, moved } = stepForward(p)
    this.host.show(now)
    return moved
  }
}
