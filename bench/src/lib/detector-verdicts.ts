/**
 * Bookkeeping of the failure-detector benchmark: which observer holds a verdict (suspected, or
 * declared dead) on which target, for several detector settings watching one simulated run.
 * From it: false-positive episodes (a live target that nobody held a verdict on gets one: what
 * starts an election or a membership change, counted once however many observers agree) and
 * detection times (a crashed target held by every live observer).
 */

export interface VerdictCounts {
  /** Episodes: a live target went from no observer's verdict to at least one. */
  episodes: number
  /** Every observer's verdict on a live target, counted one by one. */
  verdicts: number
}

export class VerdictTracker {
  /** Observers holding each setting's verdict on each target: [setting * n + target]. */
  private readonly holders: Int32Array
  /** [(setting * n + observer) * n + target] = 1 while held. */
  private readonly held: Uint8Array
  private readonly crashedAt: Float64Array
  private live: number
  /** Per setting: when every live observer held the verdict on each crashed target. */
  readonly detectedAt: Map<number, number>[]
  readonly counts: VerdictCounts[]
  /** False positives count between these virtual times (the steady window before any crash). */
  window = { from: Number.POSITIVE_INFINITY, to: Number.NEGATIVE_INFINITY }

  constructor(
    readonly n: number,
    readonly settings: number,
    private readonly now: () => number,
  ) {
    this.holders = new Int32Array(settings * n)
    this.held = new Uint8Array(settings * n * n)
    this.crashedAt = new Float64Array(n).fill(Number.NaN)
    this.live = n
    this.detectedAt = Array.from({ length: settings }, () => new Map())
    this.counts = Array.from({ length: settings }, () => ({ episodes: 0, verdicts: 0 }))
  }

  isCrashed(node: number): boolean {
    return !Number.isNaN(this.crashedAt[node]!)
  }

  /** Observer's verdict of `setting` on `target` is now `on`. */
  set(setting: number, observer: number, target: number, on: boolean): void {
    if (this.isCrashed(observer)) return
    const cell = (setting * this.n + observer) * this.n + target
    const was = this.held[cell] === 1
    if (was === on) return
    this.held[cell] = on ? 1 : 0
    const h = setting * this.n + target
    this.holders[h]! += on ? 1 : -1
    if (!on) return
    if (this.isCrashed(target)) {
      this.checkDetected(setting, target)
      return
    }
    const t = this.now()
    if (t < this.window.from || t > this.window.to) return
    const c = this.counts[setting]!
    c.verdicts++
    if (this.holders[h] === 1) c.episodes++
  }

  /** `node` crashed now: its own verdicts stop counting, and its detection clock starts. */
  crash(node: number): void {
    if (this.isCrashed(node)) return
    this.crashedAt[node] = this.now()
    this.live--
    for (let s = 0; s < this.settings; s++) {
      for (let target = 0; target < this.n; target++) {
        const cell = (s * this.n + node) * this.n + target
        if (this.held[cell] === 1) {
          this.held[cell] = 0
          this.holders[s * this.n + target]!--
        }
      }
      for (let target = 0; target < this.n; target++) {
        if (this.isCrashed(target)) this.checkDetected(s, target)
      }
    }
  }

  /** Detection times (ms after the crash) of `setting`, and the crashes it never detected. */
  detections(setting: number): { ms: number[]; missed: number } {
    const ms: number[] = []
    let missed = 0
    for (let node = 0; node < this.n; node++) {
      if (!this.isCrashed(node)) continue
      const at = this.detectedAt[setting]!.get(node)
      if (at === undefined) missed++
      else ms.push(at - this.crashedAt[node]!)
    }
    return { ms, missed }
  }

  private checkDetected(setting: number, target: number): void {
    const done = this.detectedAt[setting]!
    if (done.has(target)) return
    // Every live observer; the crashed target never counts itself.
    if (this.holders[setting * this.n + target]! >= this.live) done.set(target, this.now())
  }
}
