import { describe, expect, it } from 'vitest'
import { defaultFilters, stopsOf } from '../src/filters.js'
import {
  atEnd,
  clampNow,
  cursorX,
  type Playback,
  playFrom,
  START,
  scrubPosition,
  scrubTo,
  shownAt,
  stepBackward,
  stepForward,
  stopsShown,
} from '../src/playback.js'
import { traceToDiagram } from '../src/trace.js'

/** A run of 10 timeline seqs (0..9) whose steps stop at 2, 5 and 7: 8 and 9 are past the last. */
const run = (now: number): Playback => ({ now, end: 9, stops: [2, 5, 7] })

/** Steps forward from `from` until the playback stops moving (at most `limit` steps). */
function playToEnd(p: Playback, limit = 50): number[] {
  const visited: number[] = []
  let now = p.now
  for (let i = 0; i < limit; i++) {
    const { now: next, moved } = stepForward({ ...p, now })
    visited.push(next)
    if (!moved) return visited
    now = next
  }
  throw new Error('the playback never stopped')
}

describe('playback', () => {
  it('steps forward stop by stop, and the last stop shows the whole run', () => {
    expect(stepForward(run(START))).toEqual({ now: 2, moved: true })
    expect(stepForward(run(2))).toEqual({ now: 5, moved: true })
    // 7 is the last stop: stepping onto it shows everything up to the end (bands running on).
    expect(stepForward(run(5))).toEqual({ now: 9, moved: true })
    expect(stepForward(run(9))).toEqual({ now: 9, moved: false })
    expect(playToEnd(run(START))).toEqual([2, 5, 9, 9])
  })

  it('steps back stop by stop to the start, never before it', () => {
    expect(stepBackward(run(9))).toBe(7)
    expect(stepBackward(run(7))).toBe(5)
    expect(stepBackward(run(6))).toBe(5)
    expect(stepBackward(run(2))).toBe(START)
    expect(stepBackward(run(START))).toBe(START)
  })

  it('plays from the start again once everything is shown, else from where it is', () => {
    expect(playFrom(run(9))).toBe(START)
    expect(playFrom(run(5))).toBeUndefined()
    expect(playFrom(run(START))).toBeUndefined()
    expect(atEnd(run(9))).toBe(true)
    expect(atEnd(run(8))).toBe(false)
  })

  it('keeps now between the start and the end', () => {
    expect(clampNow(run(0), -5)).toBe(START)
    expect(clampNow(run(0), 42)).toBe(9)
    expect(clampNow(run(0), 4)).toBe(4)
  })

  it('maps the scrubber to stops and back: 0 is the start, past the last stop the end', () => {
    expect([0, 1, 2, 3].map((k) => scrubTo(run(0), k))).toEqual([START, 2, 5, 9])
    expect(scrubPosition(run(START))).toBe(0)
    expect(scrubPosition(run(3))).toBe(1)
    expect(scrubPosition(run(7))).toBe(3)
    // Between the last stop and the end the scrubber is not at its end yet...
    expect(scrubPosition(run(8))).toBe(3)
    expect(stopsShown(run(8))).toBe(3)
    // ...and each stop the scrubber reaches reads back as the same position.
    for (let k = 0; k <= 2; k++) expect(scrubPosition(run(scrubTo(run(0), k)))).toBe(k)
  })

  it('shows what happened up to now, and puts the cursor at now', () => {
    expect(shownAt(3, 3)).toBe(true)
    expect(shownAt(4, 3)).toBe(false)
    expect(shownAt(0, START)).toBe(false)
    expect(cursorX([10, 20, 30], START)).toBe(10)
    expect(cursorX([10, 20, 30], 2)).toBe(30)
    expect(cursorX([], START)).toBe(0)
  })

  it('an empty run is at its end and has nowhere to go', () => {
    const empty: Playback = { now: START, end: START, stops: [] }
    expect(atEnd(empty)).toBe(true)
    expect(stepForward(empty)).toEqual({ now: START, moved: false })
    expect(stepBackward(empty)).toBe(START)
    expect(scrubPosition(empty)).toBe(0)
  })

  it('steps through a real trace over the stops its filters leave', () => {
    const d = traceToDiagram({
      nodes: [1, 2],
      events: [
        { t: 0, type: 'send', id: 1, from: 1, to: 2, msg: { type: 'a' } },
        { t: 1, type: 'timer-set', node: 2, key: 'k', ms: 1 },
        { t: 2, type: 'deliver', id: 1, from: 1, to: 2, sentAt: 0 },
        { t: 3, type: 'crash', node: 1 },
      ],
    })
    const p: Playback = {
      now: START,
      end: d.timeline.length - 1,
      stops: stopsOf(d, defaultFilters()),
    }
    // The timer set is hidden by default: no stop at it.
    expect(p.stops).toEqual([0, 2, 3])
    expect(playToEnd(p)).toEqual([0, 2, 3, 3])
  })
})
