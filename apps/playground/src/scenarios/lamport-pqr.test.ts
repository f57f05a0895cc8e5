import { describe, expect, it } from 'vitest'
import { lamportPqr } from './lamport-pqr.js'

const run = (faults: Parameters<typeof lamportPqr.run>[0]['faults'] = []) =>
  lamportPqr.run({ n: 3, seed: 1, crash: [], faults })

describe("lamport-pqr: the slides' P, Q, R figure", () => {
  it('gives every event the clock of the figure, with the receipts that jump', () => {
    const { violations, result, liveness } = run()
    expect(violations).toEqual([])
    expect(liveness?.unfinished).toEqual([])
    const clock = (what: string) => result.events.find((h) => h.what === what)?.clock
    expect(clock('P send M1')).toBe(1)
    expect(clock('Q send M2')).toBe(3)
    // The slide's own computation: C_R = max(1, 3) + 1.
    expect(clock('R receive M2')).toBe(4)
    expect(clock('R send M3')).toBe(6)
    expect(clock('Q receive M3')).toBe(7)
    expect(clock('P receive M4')).toBe(9)
    expect(result.events.length).toBe(15)
  })

  it('orders all events by (T, pid), ties broken by the process', () => {
    const order = run().result.totalOrder as string[]
    expect(order.slice(0, 3)).toEqual(['P send M1', 'Q e', 'R k'])
    expect(order.at(-1)).toBe('P n')
  })

  it('keeps the clock condition on every message when a process is paused (many plans)', () => {
    for (let node = 1; node <= 3; node++) {
      for (let at = 0; at <= 27; at += 3) {
        const faults = [{ type: 'pause' as const, node, at, forMs: 7 }]
        const { violations, liveness, net } = run(faults)
        const plan = `pause of ${node} at ${at} ms for 7 ms`
        expect(violations, plan).toEqual([])
        expect(liveness?.unfinished, plan).toEqual([])
        expect(
          net.trace.some((e) => e.type === 'pause'),
          plan,
        ).toBe(true)
      }
    }
  })

  it('computes the clocks from the run, not from the figure: a long pause of Q changes them', () => {
    // Q paused from 0 to 30 ms takes e, M1, M2, h and M3 late: R gets M2 after its own l.
    const { violations, result } = run([{ type: 'pause', node: 2, at: 0, forMs: 30 }])
    expect(violations).toEqual([])
    const clock = (what: string) => result.events.find((h) => h.what === what)?.clock
    expect(clock('R receive M2')).not.toBe(4)
    expect(clock('P receive M4')).not.toBe(9)
  })
})
