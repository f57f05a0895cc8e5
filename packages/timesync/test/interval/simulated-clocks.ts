import type { ClockReading, LocalClocks, Timers } from '../../src/interval/index.js'

/**
 * A machine's two clocks over simulated true time: the monotonic one runs at 1 + drift (drift
 * changeable, never jumping), the wall one is monotonic + offset and can be stepped. Timers fire
 * when the monotonic clock reaches their deadline, as Node's do.
 */
export class SimulatedMachine implements LocalClocks, Timers {
  trueMs = 0
  private mono = 0
  private wallOffset: number
  private rate: number
  private timers = new Map<number, { dueMono: number; callback: () => void }>()
  private nextHandle = 1

  constructor(options: { drift?: number; wallOffsetMs?: number; startMs?: number } = {}) {
    this.rate = 1 + (options.drift ?? 0)
    this.trueMs = options.startMs ?? 0
    this.mono = 1_000 // an arbitrary origin: the monotonic clock's zero means nothing
    // The wall clock reads true time plus `wallOffsetMs` at the start.
    this.wallOffset = this.trueMs - this.mono + (options.wallOffsetMs ?? 0)
  }

  monotonic(): number {
    return this.mono
  }

  wall(): number {
    return this.mono + this.wallOffset
  }

  reading(): ClockReading {
    return { monotonicMs: this.monotonic(), wallMs: this.wall() }
  }

  setDrift(drift: number): void {
    this.rate = 1 + drift
  }

  stepWall(deltaMs: number): void {
    this.wallOffset += deltaMs
  }

  /** The monotonic clock stands still while true time goes on (a suspended machine). */
  suspend(trueMs: number): void {
    this.trueMs += trueMs
  }

  /** Moves true time on by `ms`, firing due timers in order (bounded: at most 10,000). */
  advance(ms: number): void {
    const end = this.trueMs + ms
    for (let fired = 0; fired < 10_000; fired++) {
      const due = [...this.timers].sort((a, b) => a[1].dueMono - b[1].dueMono)[0]
      const dueTrue =
        due === undefined ? Infinity : this.trueMs + (due[1].dueMono - this.mono) / this.rate
      if (due === undefined || dueTrue > end) break
      this.mono = Math.max(this.mono, due[1].dueMono)
      this.trueMs = Math.max(this.trueMs, dueTrue)
      this.timers.delete(due[0])
      due[1].callback()
    }
    this.mono += (end - this.trueMs) * this.rate
    this.trueMs = end
  }

  get pendingTimers(): number {
    return this.timers.size
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const handle = this.nextHandle++
    this.timers.set(handle, { dueMono: this.mono + ms, callback })
    return handle
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number)
  }
}
