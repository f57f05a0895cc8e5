import { describe, expect, it } from 'vitest'
import { make } from './make.js'

describe('make scenario (seed 001)', () => {
  it('modification times skip the edit made on the slow machine; Lamport order catches it (many seeds)', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const { violations, result } = make.run({ n: 3, seed, crash: [] })
      expect(violations, `seed ${seed}`).toEqual([])
      const decisions = result.decisions
      const output = decisions.find((d) => d.target === 'output.o')!
      expect(output).toMatchObject({
        physical: 'up to date',
        lamport: 'recompile',
        truth: 'recompile',
      })
      const input = decisions.find((d) => d.target === 'input.o')!
      expect(input).toMatchObject({
        physical: 'recompile',
        lamport: 'recompile',
        truth: 'recompile',
      })
      expect(result.wrongByModificationTime).toEqual(['output.o'])
    }
  })

  it('reproduces the text: output.o stamped 2144, the later output.c stamped earlier', () => {
    const { result } = make.run({ n: 3, seed: 1, crash: [] })
    const { files } = result
    expect(files['output.o']!.mtime).toBe(2144)
    expect(files['output.c']!.mtime).toBeLessThan(2144)
  })
})
