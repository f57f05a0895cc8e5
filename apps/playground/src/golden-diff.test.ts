import type { TraceEvent } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { goldenText } from './golden.js'
import { firstDifference, goldenMismatch, REWRITE_COMMAND } from './golden-diff.js'
import { lamportPqr } from './scenarios/lamport-pqr.js'

const run = { scenario: 'lamport-pqr', n: 3, seed: 1, crash: [] }
const stored = goldenText(run, lamportPqr.run({ n: 3, seed: 1, crash: [] }).net.trace)
const file = 'lamport-pqr.seed1.trace'

/** The same run with one event changed: message M2 carries another timestamp. */
function withChangedM2(trace: readonly TraceEvent[]): TraceEvent[] {
  return trace.map((e) =>
    e.type === 'send' && e.id === 2 ? { ...e, msg: { type: 'M2', t: 99 } } : e,
  )
}

describe('goldenMismatch', () => {
  it('passes a run equal to its file', () => {
    const again = goldenText(run, lamportPqr.run({ n: 3, seed: 1, crash: [] }).net.trace)
    expect(goldenMismatch(file, stored, again)).toBeUndefined()
  })

  it('reports the one changed event as one - and one + line, with the rewrite command', () => {
    const trace = withChangedM2(lamportPqr.run({ n: 3, seed: 1, crash: [] }).net.trace)
    const message = goldenMismatch(file, stored, goldenText(run, trace))!
    expect(message).toContain(`testdata/${file} differs from this run`)
    const lines = message.split('\n')
    expect(lines.filter((l) => l.startsWith('- ') && !l.startsWith('- end '))).toEqual([
      '- 8.000 send #2 2->3 M2 {"t":3}',
    ])
    expect(lines.filter((l) => l.startsWith('+ ') && !l.startsWith('+ end '))).toEqual([
      '+ 8.000 send #2 2->3 M2 {"t":99}',
    ])
    const storedLine = stored.split('\n').indexOf('8.000 send #2 2->3 M2 {"t":3}') + 1
    expect(message).toContain(`@@ -${storedLine - 3},7 +${storedLine - 3},7 @@`)
    expect(lines.filter((l) => l.startsWith('- end ') || l.startsWith('+ end '))).toHaveLength(2)
    expect(message).toContain(REWRITE_COMMAND)
  })

  it('a missing file fails, saying how to create it', () => {
    const message = goldenMismatch(file, undefined, stored)!
    expect(message).toContain('does not exist')
    expect(message).toContain('SD_UPDATE_GOLDEN=1')
  })
})

describe('firstDifference', () => {
  const lines = (n: number, suffix = '') =>
    Array.from({ length: n }, (_, i) => `${i}.000 emit 1 "x"${suffix}`)

  it('an event moved shows as one - and one + line, each with its context', () => {
    const before = lines(20)
    const after = [...before.slice(0, 5), ...before.slice(6, 15), before[5]!, ...before.slice(15)]
    const diff = firstDifference(before.join('\n'), after.join('\n'), { context: 1 })!
    expect(diff.split('\n')).toEqual([
      '@@ -5,3 +5,2 @@',
      '  4.000 emit 1 "x"',
      '- 5.000 emit 1 "x"',
      '  6.000 emit 1 "x"',
      '@@ -15,2 +14,3 @@',
      '  14.000 emit 1 "x"',
      '+ 5.000 emit 1 "x"',
      '  15.000 emit 1 "x"',
    ])
  })

  it('stops after a budget of changed lines and says how many more there are', () => {
    const before = lines(40).join('\n')
    const after = [
      ...lines(10),
      ...lines(40)
        .slice(10)
        .map((l) => `${l} later`),
    ].join('\n')
    const diff = firstDifference(before, after, { context: 2, maxLines: 3 })!
    expect(diff.split('\n')).toEqual([
      '@@ -9,32 +9,32 @@',
      '  8.000 emit 1 "x"',
      '  9.000 emit 1 "x"',
      '- 10.000 emit 1 "x"',
      '- 11.000 emit 1 "x"',
      '- 12.000 emit 1 "x"',
      '… 57 more changed lines not shown',
    ])
  })

  it('an event added at the end shows as one + line', () => {
    const diff = firstDifference(lines(5).join('\n'), lines(6).join('\n'))!
    expect(diff.split('\n').filter((l) => /^[-+] /.test(l))).toEqual(['+ 5.000 emit 1 "x"'])
  })
})
