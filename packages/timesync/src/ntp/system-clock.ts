// Node-only (the @sd/timesync/udp entry): the declaration build of this package leaves Node's
// types out unless a file asks for them.
/// <reference types="node" />
/**
 * The machine's clock, read with sub-millisecond resolution: `performance.timeOrigin +
 * performance.now()` (microseconds, but blind to steps of the system clock after the process
 * started) plus a correction that keeps it inside the millisecond `Date.now()` names (which
 * follows steps). The correction is measured once per process, at the instant `Date.now()`
 * ticks, so every reader in a process agrees, and agrees with other processes' clocks to a few
 * microseconds.
 */

/** A clock: the current Unix time in milliseconds, fractions allowed. */
export type UnixClock = () => number

const fine = () => performance.timeOrigin + performance.now()

let correction: number | undefined

/** Ticks of Date.now() the calibration watches; the tightest one wins (a preempted one is loose). */
const CALIBRATION_TICKS = 4

/** Spins over a few ticks of Date.now() (about 1 ms each) and keeps the tightest estimate. */
function calibrate(): number {
  let best = tick()
  for (let i = 1; i < CALIBRATION_TICKS; i++) {
    const next = tick()
    if (next.width < best.width) best = next
  }
  return best.correction
}

/**
 * One tick of Date.now() to `wall`: it came after the last read of the old value (itself after
 * the fine reading `last`) and before the first read of the new one (before the fine reading
 * `after`), so at fine time (last + after) / 2 the wall clock read `wall`, give or take half
 * the width.
 */
function tick(): { correction: number; width: number } {
  let last = fine()
  const start = Date.now()
  for (;;) {
    const next = fine()
    const wall = Date.now()
    if (wall !== start) {
      const after = fine()
      return { correction: wall - (last + after) / 2, width: after - last }
    }
    last = next
  }
}

/** A reader of the system clock (see the module comment); the first one calibrates. */
export function systemClock(): UnixClock {
  correction ??= calibrate()
  return () => {
    const f = fine()
    const wall = Date.now()
    let t = f + (correction as number)
    // Date.now() truncates the wall clock, so the true time lies in [wall, wall + 1): outside it,
    // the system clock was stepped or slewed since calibration.
    if (t < wall) {
      correction = wall - f
      t = wall
    } else if (t > wall + 1) {
      correction = wall + 1 - f
      t = wall + 1
    }
    return t
  }
}
