import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { diffLines } from './line-diff.js'

const side = (ops: ReturnType<typeof diffLines>, kind: '-' | '+') =>
  ops.filter((op) => op.kind !== kind).map((op) => op.line)

describe('diffLines', () => {
  it('keeps both texts: kept and removed lines give the first, kept and added the second', () => {
    const lines = fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 30 })
    fc.assert(
      fc.property(lines, lines, (before, after) => {
        const ops = diffLines(before, after)
        expect(side(ops, '+')).toEqual(before)
        expect(side(ops, '-')).toEqual(after)
      }),
      { numRuns: 300 },
    )
  })

  it('finds the shortest script: one line moved is one removal and one addition', () => {
    const ops = diffLines(['a', 'b', 'c', 'd', 'e'], ['a', 'c', 'd', 'b', 'e'])
    expect(ops.filter((op) => op.kind !== ' ')).toEqual([
      { kind: '-', line: 'b' },
      { kind: '+', line: 'b' },
    ])
  })

  it('past maxEdits, shows the differing middle as removed then added', () => {
    const ops = diffLines(['x', 'a', 'b', 'y'], ['x', 'b', 'a', 'y'], 1)
    expect(ops.map((op) => `${op.kind}${op.line}`)).toEqual([' x', '-a', '-b', '+b', '+a', ' y'])
  })
})
