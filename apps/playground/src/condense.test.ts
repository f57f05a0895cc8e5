import { describe, expect, it } from 'vitest'
import { type CondenseRow, condense, gapText } from './condense.js'

const row = (t: number, fold: string | undefined, cause = false): CondenseRow<number> => ({
  t,
  fold,
  cause,
  item: t,
})

const shape = (rows: CondenseRow<number>[], budget: number) =>
  condense(rows, budget).map((c) => (c.kind === 'row' ? c.item : `gap ${c.gap.count}`))

describe('condense', () => {
  it('keeps every row when they fit', () => {
    const rows = [row(1, 'ping'), row(2, undefined), row(3, 'ping')]
    expect(shape(rows, 3)).toEqual([1, 2, 3])
  })

  it('keeps story rows past the budget and folds the commonest kind first', () => {
    const rows = [
      ...[1, 2, 3, 4, 5].map((t) => row(t, 'heartbeat')),
      row(6, 'election'),
      row(7, undefined),
      ...[8, 9, 10, 11].map((t) => row(t, 'heartbeat')),
    ]
    expect(shape(rows, 5)).toEqual(['gap 5', 6, 7, 'gap 4'])
    expect(shape(rows, 1)).toEqual(['gap 6', 7, 'gap 4'])
  })

  it('keeps the rows that explain story rows before any other kind', () => {
    const rows = [row(1, 'rare'), row(2, 'adjust', true), row(3, undefined), row(4, 'adjust')]
    // The cause (t=2) is kept, the other adjust rows and the rarer kind folded (a run of one,
    // t=1, costs a row either way and is drawn as itself).
    expect(shape([...rows, row(5, 'rare'), row(6, 'adjust')], 4)).toEqual([1, 2, 3, 'gap 3'])
  })

  it('spends budget left over on unfolding the shortest runs', () => {
    const rows = [
      row(1, 'a'),
      row(2, 'a'),
      row(3, undefined),
      ...[4, 5, 6, 7, 8].map((t) => row(t, 'a')),
    ]
    // Kind a (7 rows) does not fit 5; folded it costs 3, and 2 spare rows open the run of two.
    expect(shape(rows, 5)).toEqual([1, 2, 3, 'gap 5'])
  })

  it('says what a gap folded, with its time span', () => {
    const [gap] = condense([row(1, 'b'), row(2, 'a'), row(3, 'a')], 0)
    expect(gap?.kind === 'gap' && gapText(gap.gap, 1)).toBe('3 rows folded, 1.0–3.0 ms: a ×2, b ×1')
  })
})

describe('condense: story rows that recur', () => {
  const story = (t: number, key: string): CondenseRow<number> => ({
    t,
    fold: undefined,
    repeat: { key, kind: `★ ${key}` },
    item: t,
  })

  it('folds the middle occurrences of the largest recurring group when the story overflows', () => {
    const rows = [1, 2, 3, 4, 5, 6].map((t) => story(t, 'trusts'))
    // Six story rows in a budget of four: the first two and the last stay, the middle three fold.
    expect(shape(rows, 4)).toEqual([1, 2, 'gap 3', 6])
  })

  it('leaves recurring story rows alone when the story fits', () => {
    const rows = [
      row(1, 'poll'),
      row(2, 'poll'),
      ...[3, 4, 5].map((t) => story(t, 'trusts')),
      row(6, 'poll'),
      row(7, 'poll'),
    ]
    expect(shape(rows, 5)).toEqual(['gap 2', 3, 4, 5, 'gap 2'])
  })

  it('folds the largest group first, and only as many groups as the budget needs', () => {
    const rows = [
      ...[1, 2, 3, 4, 5, 6].map((t) => story(t, 'a')),
      ...[7, 8, 9, 10].map((t) => story(t, 'b')),
    ]
    // Ten rows in eight: folding a's middle three leaves a 1, 2, gap, 6 and b whole.
    expect(shape(rows, 8)).toEqual([1, 2, 'gap 3', 6, 7, 8, 9, 10])
  })
})
