/**
 * Repeated searches for `explore-packages`: the first (cold) one apart, then warm-up rounds, then
 * measured rounds, each timed both by wall clock and by this process's CPU time. A long search
 * warms up within itself, and a one-off small search pays for compiling the protocol's code: the
 * warm median is what a long search sees, the cold figure what a single small search does.
 */
import { median } from './measure.js'

/** One run's work (states or schedules) and its times. */
export interface Timed<R> {
  result: R
  /** Wall-clock milliseconds. */
  ms: number
  /** User + system CPU milliseconds of this process (every thread: the collector's too). */
  cpuMs: number
}

export function timed<R>(run: () => R): Timed<R> {
  const cpu = process.cpuUsage()
  const started = performance.now()
  const result = run()
  const ms = performance.now() - started
  const used = process.cpuUsage(cpu)
  return { result, ms, cpuMs: (used.user + used.system) / 1000 }
}

/** A rate (work per second) by wall time and by CPU time. */
export interface Rates {
  wall: number
  cpu: number
}

export const ratesOf = (work: number, t: { ms: number; cpuMs: number }): Rates => ({
  wall: perSecond(work, t.ms),
  cpu: perSecond(work, t.cpuMs),
})

const perSecond = (work: number, ms: number) => (ms > 0 ? Math.round((work / ms) * 1000) : 0)

/** The measured rounds' rates and their medians, by wall time and by CPU time. */
export interface WarmRates {
  rounds: number
  warmup: number
  wall: { median: number; perRound: number[] }
  cpu: { median: number; perRound: number[] }
}

export function warmRates(perRound: readonly Rates[], warmup: number): WarmRates {
  const wall = perRound.map((r) => r.wall)
  const cpu = perRound.map((r) => r.cpu)
  return {
    rounds: perRound.length,
    warmup,
    wall: { median: Math.round(median(wall)), perRound: wall },
    cpu: { median: Math.round(median(cpu)), perRound: cpu },
  }
}
