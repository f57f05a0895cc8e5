import { nextStop, previousStop } from './filters.js'

/**
 * Stepping through virtual time, as pure state: where the playback is and where each control
 * takes it. The page (`main.ts`) shows a `Playback` and keeps the play timer; nothing here
 * touches the DOM or the clock.
 */

/** Nothing shown yet: `now` before the first timeline seq. */
export const START = -1

export interface Playback {
  /** The last timeline seq shown; everything after it is hidden. `START` shows nothing. */
  now: number
  /** The run's last timeline seq (`START` for an empty run): at it, the whole diagram shows. */
  end: number
  /** The seqs a step stops at, ascending (`stopsOf`: what the filters show). */
  stops: readonly number[]
}

/** `now` kept between `START` and the end. */
export function clampNow(p: Playback, now: number): number {
  return Math.max(START, Math.min(p.end, now))
}

export function atEnd(p: Playback): boolean {
  return p.now >= p.end
}

/**
 * One step forward: to the next stop, or to the end from the last stop (so the bands running to
 * the end show too). `moved` is false when there was no stop left: a player stops there.
 */
export function stepForward(p: Playback): { now: number; moved: boolean } {
  const next = nextStop(p.stops, p.now)
  if (next === undefined) return { now: p.end, moved: false }
  return { now: next === p.stops[p.stops.length - 1] ? p.end : next, moved: true }
}

/** One step back: to the stop before `now`, or to `START`. */
export function stepBackward(p: Playback): number {
  return clampNow(p, previousStop(p.stops, p.now))
}

/** Where pressing play jumps first: to the start when the run is all shown; else it stays. */
export function playFrom(p: Playback): number | undefined {
  return atEnd(p) ? START : undefined
}

/** How many stops are shown at `now`. */
export function stopsShown(p: Playback): number {
  return p.stops.filter((s) => s <= p.now).length
}

/** The scrubber's position: the stops shown, or past the last stop at the end. */
export function scrubPosition(p: Playback): number {
  return atEnd(p) ? p.stops.length : stopsShown(p)
}

/** Where the scrubber at `position` (0 to `stops.length`) takes the playback. */
export function scrubTo(p: Playback, position: number): number {
  if (position >= p.stops.length) return p.end
  if (position <= 0) return START
  return p.stops[position - 1]!
}

/** Whether what happened at timeline seq `seq` is shown at `now`. */
export function shownAt(seq: number, now: number): boolean {
  return seq <= now
}

/** The layout x of the "now" cursor: at the first seq's x before anything is shown. */
export function cursorX(x: readonly number[], now: number): number {
  return now < 0 ? (x[0] ?? 0) : x[now]!
}
