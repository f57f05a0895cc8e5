import { describe, expect, it } from 'vitest'
import { main } from '../cli.js'

function json(args: string[]): { code: number; out: Record<string, unknown> } {
  let out = ''
  const code = main(['run', ...args, '--json'], { out: (t) => (out += t), err: () => {} })
  return { code, out: JSON.parse(out) }
}

describe('election scenarios', () => {
  it("election-bully replays the texts' example: 7 leads, crashes, 6 wins, 7 recovers and takes over", () => {
    const { code, out } = json(['election-bully'])
    const result = out.result as Record<string, unknown>
    expect(code).toBe(0)
    expect(out.violations).toEqual([])
    expect((result.history as Array<{ leader: number }>).map((h) => h.leader)).toEqual([7, 6, 7])
    expect(result.leader).toBe(7)
    expect(result.agreed).toBe(true)
    const messages = result.messages as Record<string, number>
    expect(messages.election).toBeGreaterThan(0)
    expect(messages.ok).toBeGreaterThan(0)
  })

  it('election-bully with another node crashed: the best live one leads while it is down', () => {
    const { code, out } = json(['election-bully', '--n', '6', '--crash', '5,4'])
    const result = out.result as Record<string, unknown>
    expect(code).toBe(0)
    expect(out.violations).toEqual([])
    expect((result.history as Array<{ leader: number }>).map((h) => h.leader)).toContain(3)
    expect(result.leader).toBe(5)
  })

  it('election-yoyo elects the minimum id on random connected graphs', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const { code, out } = json(['election-yoyo', '--n', '12', '--seed', String(seed)])
      const result = out.result as Record<string, unknown>
      expect(code).toBe(0)
      expect(out.violations).toEqual([])
      expect(result.agreed).toBe(true)
      expect(result.leader).toBe(result.minimum)
    }
  })

  it("election-ring replays the texts' example: 7 crashed, 2 and 5 start at once, both end with 6", () => {
    const { code, out } = json(['election-ring'])
    const result = out.result as Record<string, unknown>
    expect(code).toBe(0)
    expect(out.violations).toEqual([])
    expect(result.history).toEqual([{ leader: 6, term: result.term }])
    expect(result.agreed).toBe(true)
    expect((result.messages as Record<string, number>).election).toBe(16) // two circulations of the 7 live
  })

  it('election-chang-roberts elects the largest id with ELECTION messages within the worst case', () => {
    for (const seed of [1, 2, 3]) {
      const { code, out } = json(['election-chang-roberts', '--n', '16', '--seed', String(seed)])
      const result = out.result as {
        leader: number
        ring: number[]
        messages: Record<string, number>
        theory: { worst: number }
      }
      expect(code).toBe(0)
      expect(out.violations).toEqual([])
      expect(result.leader).toBe(Math.max(...result.ring))
      expect(result.messages.election).toBeLessThanOrEqual(result.theory.worst)
      expect(result.messages.elected).toBe(16)
    }
  })
})
