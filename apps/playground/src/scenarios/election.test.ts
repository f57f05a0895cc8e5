import { arrayOf, isFiniteNumber, isNonNegInt, shape } from '@sd/transport'
import { assert, describe, expect, it } from 'vitest'
import { runJson as json } from './run-json.js'

const isChangRobertsResult = shape({
  leader: isNonNegInt,
  ring: arrayOf(isNonNegInt),
  messages: shape({ election: isNonNegInt, elected: isNonNegInt }),
  theory: shape({ worst: isFiniteNumber }),
})

const positive = expect.toSatisfy((n: unknown) => typeof n === 'number' && n > 0)

describe('election scenarios', () => {
  it("election-bully replays the texts' example: 7 leads, crashes, 6 wins, 7 recovers and takes over", () => {
    const { code, out, result } = json(['election-bully'])
    expect(code).toBe(0)
    expect(out.violations).toEqual([])
    expect(result.history).toMatchObject([{ leader: 7 }, { leader: 6 }, { leader: 7 }])
    expect(result.leader).toBe(7)
    expect(result.agreed).toBe(true)
    expect(result.messages).toMatchObject({ election: positive, ok: positive })
  })

  it('election-bully with another node crashed: the best live one leads while it is down', () => {
    const { code, out, result } = json(['election-bully', '--n', '6', '--crash', '5,4'])
    expect(code).toBe(0)
    expect(out.violations).toEqual([])
    expect(result.history).toContainEqual(expect.objectContaining({ leader: 3 }))
    expect(result.leader).toBe(5)
  })

  it('election-yoyo elects the minimum id on random connected graphs', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const { code, out, result } = json(['election-yoyo', '--n', '12', '--seed', String(seed)])
      expect(code).toBe(0)
      expect(out.violations).toEqual([])
      expect(result.agreed).toBe(true)
      expect(result.leader).toBe(result.minimum)
    }
  })

  it("election-ring replays the texts' example: 7 crashed, 2 and 5 start at once, both end with 6", () => {
    const { code, out, result } = json(['election-ring'])
    expect(code).toBe(0)
    expect(out.violations).toEqual([])
    expect(result.history).toEqual([{ leader: 6, term: result.term }])
    expect(result.agreed).toBe(true)
    expect(result.messages).toMatchObject({ election: 16 }) // two circulations of the 7 live
  })

  it('election-chang-roberts elects the largest id with ELECTION messages within the worst case', () => {
    for (const seed of [1, 2, 3]) {
      const { code, out, result } = json([
        'election-chang-roberts',
        '--n',
        '16',
        '--seed',
        String(seed),
      ])
      assert(isChangRobertsResult(result), JSON.stringify(result))
      expect(code).toBe(0)
      expect(out.violations).toEqual([])
      expect(result.leader).toBe(Math.max(...result.ring))
      expect(result.messages.election).toBeLessThanOrEqual(result.theory.worst)
      expect(result.messages.elected).toBe(16)
    }
  })
})
