import { describe, expect, it } from 'vitest'
import { causalSets, formatVector, happenedBefore } from '../src/causality.js'
import { describeEvent, describeMessage } from '../src/describe.js'
import {
  defaultFilters,
  eventShown,
  messageShown,
  nextStop,
  previousStop,
  protoChoices,
  stopsOf,
} from '../src/filters.js'
import { traceToDiagram } from '../src/trace.js'

/**
 * 1 sends a to 2 and b to 3; 3 then sends c to 2. 2's delivery of a is concurrent with
 * everything at 3; 2's delivery of c has the whole run but its own line's future in its past.
 */
const d = traceToDiagram({
  nodes: [1, 2, 3],
  events: [
    { t: 0, type: 'send', id: 1, from: 1, to: 2, msg: { type: 'a' } }, // 0
    { t: 0, type: 'send', id: 2, from: 1, to: 3, msg: { type: 'b' }, proto: 'x' }, // 1
    { t: 1, type: 'deliver', id: 1, from: 1, to: 2, sentAt: 0 }, // 2
    { t: 2, type: 'deliver', id: 2, from: 1, to: 3, sentAt: 0, proto: 'x' }, // 3
    { t: 2, type: 'timer-set', node: 3, key: 'k', ms: 1 }, // 4
    { t: 3, type: 'send', id: 3, from: 3, to: 2, msg: { type: 'c' } }, // 5
    { t: 4, type: 'deliver', id: 3, from: 3, to: 2, sentAt: 3 }, // 6
    { t: 5, type: 'crash', node: 1 }, // 7
  ],
})
const ev = (id: number) => d.events.find((e) => e.id === id)!

describe('vector clocks from the message pattern', () => {
  it('ticks every process event and merges the send into its delivery', () => {
    expect(d.events.map((e) => formatVector(e.vc))).toEqual([
      '[1, 0, 0]',
      '[2, 0, 0]',
      '[1, 1, 0]',
      '[2, 0, 1]',
      '[2, 0, 2]',
      '[2, 0, 3]',
      '[2, 2, 3]',
      '[3, 0, 0]',
    ])
    expect(d.events.map((e) => e.lamport)).toEqual([1, 2, 2, 3, 4, 5, 6, 3])
    expect(happenedBefore(ev(1), ev(6), 0)).toBe(true)
    expect(happenedBefore(ev(6), ev(1), 1)).toBe(false)
  })

  it('splits the other events into causal past, future and concurrent', () => {
    const ids = (s: Set<{ id: number }>) => [...s].map((e) => e.id).sort((a, b) => a - b)
    const at2 = causalSets(d, ev(2))
    expect(ids(at2.past)).toEqual([0])
    expect(ids(at2.future)).toEqual([6])
    expect(ids(at2.concurrent)).toEqual([1, 3, 4, 5, 7])
    const at6 = causalSets(d, ev(6))
    expect(ids(at6.past)).toEqual([0, 1, 2, 3, 4, 5])
    expect(ids(at6.future)).toEqual([])
    const at1 = causalSets(d, ev(1))
    expect(ids(at1.future)).toEqual([3, 4, 5, 6, 7])
  })
})

describe('filters and stepping', () => {
  it('hides bookkeeping by default, never crashes; filters by type and protocol', () => {
    const f = defaultFilters()
    expect(eventShown(ev(4), f)).toBe(false)
    expect(eventShown(ev(7), f)).toBe(true)
    f.hiddenTypes.add('a')
    expect(eventShown(ev(0), f)).toBe(false)
    expect(messageShown(d.messages[0]!, f)).toBe(false)
    f.hiddenProtos.add('x')
    expect(messageShown(d.messages[1]!, f)).toBe(false)
    expect(messageShown(d.messages[2]!, f)).toBe(true)
    f.hiddenProtos.add('(none)')
    expect(messageShown(d.messages[2]!, f)).toBe(false)
    expect(eventShown(ev(7), f)).toBe(true)
    expect(protoChoices(d)).toEqual(['x', '(none)'])
  })

  it('steps over the shown items only, both ways', () => {
    const f = defaultFilters()
    const stops = stopsOf(d, f)
    expect(stops).not.toContain(ev(4).seq)
    expect(nextStop(stops, -1)).toBe(0)
    expect(nextStop(stops, ev(3).seq)).toBe(ev(5).seq)
    expect(nextStop(stops, stops[stops.length - 1]!)).toBeUndefined()
    expect(previousStop(stops, ev(5).seq)).toBe(ev(3).seq)
    expect(previousStop(stops, 0)).toBe(-1)
  })
})

describe('hover details', () => {
  it('says what, where, when, and the timestamps', () => {
    const text = describeEvent(d, ev(6))
      .rows.map(([k, v]) => `${k}: ${v}`)
      .join('\n')
    expect(text).toContain('what: delivery')
    expect(text).toContain('message: #3 c from 3')
    expect(text).toContain('vector clock: [2, 2, 3] over (1, 2, 3), computed from the messages')
    expect(text).toContain('Lamport clock: 6')
    const m = describeMessage(d, d.messages[1]!)
    expect(m.title).toBe('#2 b 1 → 3')
    expect(m.rows).toContainEqual(['outcome', 'delivered at 2 ms'])
    expect(m.rows).toContainEqual(['protocol', 'x'])
  })
})
