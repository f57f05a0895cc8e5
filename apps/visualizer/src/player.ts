/// <reference lib="dom" />

/**
 * The play timer and its button: `start` calls `tick` at the speed chosen until it returns false
 * or `stop` is called. What a tick does (a step, see `playback.ts`) is the page's.
 */
export class Player {
  private timer: ReturnType<typeof setInterval> | undefined

  constructor(
    private readonly button: HTMLButtonElement,
    /** Steps per second. */
    private readonly speed: () => number,
  ) {}

  get playing(): boolean {
    return this.timer !== undefined
  }

  start(tick: () => boolean): void {
    this.button.textContent = '❚❚ Pause'
    this.button.setAttribute('aria-pressed', 'true')
    this.timer = setInterval(() => {
      if (!tick()) this.stop()
    }, 1000 / this.speed())
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    this.button.textContent = '▶ Play'
    this.button.setAttribute('aria-pressed', 'false')
  }
}
