import { describe, expect, it } from 'vitest'
import { runJson as json } from './run-json.js'

describe('mutual exclusion scenarios', () => {
  it("mutex-ricart-agrawala replays the texts' example: 41 and 34, P2 enters first, 2(n-1) messages", () => {
    const { code, out, result } = json(['mutex-ricart-agrawala'])
    expect(code).toBe(0)
    expect(result.order).toEqual([2, 1])
    expect(result.messagesPerEntry).toBe(4)
    expect(result.clientDelay).toBe(2)
    expect(result.syncDelay).toBe(1)
    expect(out.violations).toEqual([])
  })

  it('mutex-lamport costs 3(n-1) messages per entry and keeps mutual exclusion on random workloads', () => {
    for (const seed of [2, 3, 4]) {
      const { code, out, result } = json(['mutex-lamport', '--n', '4', '--seed', String(seed)])
      expect(code).toBe(0)
      expect(result.entries).toBe(8)
      expect(result.messagesPerEntry).toBe(9)
      expect(out.violations).toEqual([])
    }
  })

  it('mutex-quorum shows the violation as its expected finding, next to P_v', () => {
    const { code, out, result } = json(['mutex-quorum'])
    expect(code).toBe(0)
    expect(out.violations).toEqual([])
    // Two holders at once, with different tokens: a resource that refuses older tokens fences one.
    const finding = String(result.finding)
    const tokens =
      /7 acquired default \(token (\d+)\) while 6 held it since t=[\d.]+ \(token (\d+)\)/.exec(
        finding,
      )
    expect(tokens, finding).not.toBeNull()
    expect(tokens![1]).not.toBe(tokens![2])
    expect(result.violationProbability).toMatchObject({
      pv: expect.toSatisfy((pv: unknown) => typeof pv === 'number' && pv < 1e-40),
    })
  })

  it("mutex-token-ring serves the two users of the texts' figure, also with a node of the ring crashed", () => {
    for (const args of [[], ['--crash', '3']]) {
      const { code, out, result } = json(['mutex-token-ring', ...args])
      expect(code).toBe(0)
      expect(result.entries).toBe(6)
      expect(Array.isArray(result.order) && new Set(result.order)).toEqual(new Set([2, 4]))
      expect(out.violations).toEqual([])
    }
  })

  it('mutex-maekawa serves every request under contention at 3 to 5 messages per quorum peer', () => {
    const { code, out, result } = json(['mutex-maekawa'])
    expect(code).toBe(0)
    expect(result.entries).toBe(18)
    // n = 9: a 3 x 3 grid, 4 quorum peers.
    expect(typeof result.messagesPerEntry).toBe('number')
    expect(result.messagesPerEntry).toBeGreaterThanOrEqual(3 * 4)
    expect(result.messagesPerEntry).toBeLessThanOrEqual(5 * 4)
    expect(out.violations).toEqual([])
  })

  it('mutex-centralized keeps mutual exclusion and token order through a coordinator failover', () => {
    const plain = json(['mutex-centralized', '--crash', 'none'])
    expect(plain.code).toBe(0)
    expect(plain.result.entries).toBe(10)
    // Without --crash the coordinator crashes: the default run shows the failover.
    for (const crash of [[], ['--crash', '1'], ['--crash', '1,3']]) {
      const { code, out, result } = json(['mutex-centralized', ...crash])
      expect(code).toBe(0)
      expect(result.newCoordinator).toBe(2)
      // Every live node's requests are served after the change (the crashed ones' are not).
      expect(Array.isArray(result.order) && result.order.filter((id) => id === 4)).toHaveLength(2)
      expect(out.violations).toEqual([])
    }
  })
})
