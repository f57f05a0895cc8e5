import type { TimelineItem } from './model.js'

/**
 * The time axis: where a time lies on the x axis of a layout (in compact spacing x is not
 * proportional to time, so the mapping is read off the laid-out instants), and round tick times
 * with units for the visible stretch.
 */
export interface TimeScale {
  xAt(t: number): number
  tAt(x: number): number
  t0: number
  t1: number
}

/**
 * From the timeline's times and their x: one point per distinct time (its leftmost item), made
 * non-decreasing, then linear in between.
 */
export function timeScale(timeline: readonly TimelineItem[], x: readonly number[]): TimeScale {
  const ts: number[] = []
  const xs: number[] = []
  for (const item of timeline) {
    const at = x[item.seq]!
    if (ts.length > 0 && ts[ts.length - 1] === item.t) {
      xs[xs.length - 1] = Math.min(xs[xs.length - 1]!, at)
    } else {
      ts.push(item.t)
      xs.push(at)
    }
  }
  // Each instant's x never left of an earlier one's, so the axis runs one way.
  for (let i = xs.length - 2; i >= 0; i--) xs[i] = Math.min(xs[i]!, xs[i + 1]!)
  const interpolate = (from: number[], to: number[], v: number): number => {
    if (from.length === 0) return 0
    if (from.length === 1 || v <= from[0]!) return to[0]!
    if (v >= from[from.length - 1]!) return to[to.length - 1]!
    let lo = 0
    let hi = from.length - 1
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1
      if (from[mid]! <= v) lo = mid
      else hi = mid
    }
    const span = from[hi]! - from[lo]!
    return span === 0 ? to[lo]! : to[lo]! + ((v - from[lo]!) / span) * (to[hi]! - to[lo]!)
  }
  return {
    xAt: (t) => interpolate(ts, xs, t),
    tAt: (px) => interpolate(xs, ts, px),
    t0: ts[0] ?? 0,
    t1: ts[ts.length - 1] ?? 0,
  }
}

/** The smallest of 1, 2, 5 × 10^k (ms) at least `raw`. */
export function niceStep(raw: number): number {
  if (!(raw > 0)) return 1
  const p = 10 ** Math.floor(Math.log10(raw))
  for (const m of [1, 2, 5, 10]) if (m * p >= raw - 1e-12 * p) return m * p
  return 10 * p
}

/** A time in ms with its unit: `250 µs`, `37.5 ms`, `12.4 s`, `2 min 5 s`. */
export function formatDuration(ms: number): string {
  const a = Math.abs(ms)
  const trim = (v: number) => String(Number(v.toPrecision(6)))
  if (a === 0) return '0'
  if (a < 1) return `${trim(ms * 1000)} µs`
  if (a < 1000) return `${trim(ms)} ms`
  if (a < 120_000) return `${trim(ms / 1000)} s`
  const min = Math.trunc(ms / 60_000)
  return `${min} min ${trim((ms - min * 60_000) / 1000)} s`
}

export interface Tick {
  t: number
  x: number
  label: string
}

/**
 * Ticks between layout x `from` and `to`, at least `minGap` layout units apart on average:
 * round times (1, 2, 5 × 10^k ms) relative to the run's start.
 */
export function ticks(scale: TimeScale, from: number, to: number, minGap: number): Tick[] {
  const ta = scale.tAt(from)
  const tb = scale.tAt(to)
  if (!(tb > ta) || !(to > from))
    return [{ t: ta, x: scale.xAt(ta), label: formatDuration(ta - scale.t0) }]
  const count = Math.max(1, Math.floor((to - from) / minGap))
  const step = niceStep((tb - ta) / count)
  const out: Tick[] = []
  const first = Math.ceil((ta - scale.t0) / step) * step
  for (let rel = first; scale.t0 + rel <= tb && out.length < 1000; rel += step) {
    const t = scale.t0 + rel
    const x = scale.xAt(t)
    // Compact spacing squeezes long waits: skip ticks that would sit on top of the last one.
    if (out.length > 0 && x - out[out.length - 1]!.x < minGap / 2) continue
    out.push({ t, x, label: formatDuration(Number(rel.toPrecision(12))) })
  }
  return out
}
