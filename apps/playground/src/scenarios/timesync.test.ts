import {
  arrayOf,
  type Fields,
  type Guard,
  isBoolean,
  isFiniteNumber,
  isRecord,
  isString,
  misfit,
  type ShapeOf,
  shape,
} from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { main } from '../cli.js'

function json(args: string[]): { code: number; out: Record<string, unknown> } {
  let out = ''
  const code = main(['run', ...args, '--json'], { out: (t) => (out += t), err: () => {} })
  return { code, out: JSON.parse(out) }
}

function sd(...argv: string[]): { code: number; out: string } {
  const out: string[] = []
  const code = main(argv, { out: (t) => out.push(t), err: () => {} })
  return { code, out: out.join('\n') }
}

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8]

const recordOf =
  <T>(item: Guard<T>): Guard<Record<string, T>> =>
  (value): value is Record<string, T> =>
    isRecord(value) && Object.values(value).every(item)
const byNode = recordOf(isFiniteNumber)
const ids = arrayOf(isFiniteNumber)
const isNumber = isFiniteNumber

/** What every synchronizer's result has. */
const SYNC = {
  offsetsBefore: byNode,
  offsetsAfter: byNode,
  errors: byNode,
  spreadBefore: isNumber,
  spreadAfter: isNumber,
  withinBound: isBoolean,
  stillSlewing: ids,
}

/** The run's `result`, parsed JSON, checked against `fields` before the test reads it. */
function resultOf<F extends Fields>(out: Record<string, unknown>, fields: F): ShapeOf<F> {
  const { result } = out
  if (!shape(fields)(result))
    throw new Error(`result.${misfit(fields, result)} does not fit: ${JSON.stringify(result)}`)
  return result
}

const spreadOf = (values: Record<string, number>) =>
  Math.max(...Object.values(values)) - Math.min(...Object.values(values))

/** What both temporal-order scenarios' results have. */
/** A run that exits 0 with no violation: its result, checked against `fields`. */
function cleanResult<F extends Fields>(args: string[], fields: F): ShapeOf<F> {
  const { code, out } = json(args)
  expect(code).toBe(0)
  expect(out.violations).toEqual([])
  return resultOf(out, fields)
}

const TEMPORAL = {
  holdBackMs: isNumber,
  broadcasts: isNumber,
  delivered: byNode,
  late: isNumber,
  sameSequence: isBoolean,
}

describe('clock synchronization scenarios', () => {
  it('sd list shows them', () => {
    const { code, out } = sd('list')
    expect(code).toBe(0)
    for (const name of ['cristian', 'berkeley', 'temporal-order', 'temporal-order-late'])
      expect(out).toMatch(new RegExp(`^\\s*${name}\\b`, 'm'))
  })

  it('cristian brings every client within its reported bound of the server (several seeds)', () => {
    for (const seed of SEEDS) {
      const result = cleanResult(['cristian', '--seed', String(seed)], {
        ...SYNC,
        server: isNumber,
        errorBoundMs: isNumber,
        estimatesWithinBound: isBoolean,
        adjusted: isNumber,
        failedRounds: isNumber,
      })
      expect(Object.keys(result.offsetsBefore)).toEqual(['1', '2', '3', '4', '5'])
      expect(result.offsetsBefore['1']).toBe(0)
      expect(result.spreadBefore).toBeCloseTo(spreadOf(result.offsetsBefore), 2)
      expect(result.spreadAfter).toBeCloseTo(spreadOf(result.offsetsAfter), 2)
      expect(result.errors).toEqual(result.offsetsAfter)
      expect(result.spreadAfter).toBeLessThan(result.spreadBefore)
      expect(result.withinBound).toBe(true)
      expect(result.estimatesWithinBound).toBe(true)
      expect(result.stillSlewing).toEqual([])
      expect(result.failedRounds).toBe(0)
      expect(result.adjusted).toBe(4 * 4) // 4 clients, 4 rounds
      // Each client ends within the largest bound (plus a hair of drift) of true time.
      for (const error of Object.values(result.errors))
        expect(Math.abs(error)).toBeLessThanOrEqual(result.errorBoundMs + 1)
    }
  })

  it('cristian with a client crashed skips it; with the server crashed every round fails', () => {
    const withoutClient = cleanResult(['cristian', '--crash', '3'], {
      ...SYNC,
      crashed: ids,
      unsynced: ids,
    })
    expect(Object.keys(withoutClient.offsetsAfter)).toEqual(['1', '2', '4', '5'])
    expect(withoutClient.crashed).toEqual([3])
    expect(withoutClient.unsynced).toEqual([])
    expect(withoutClient.withinBound).toBe(true)

    const unserved = cleanResult(['cristian', '--crash', '1'], {
      ...SYNC,
      adjusted: isNumber,
      failedRounds: isNumber,
      unsynced: ids,
    })
    expect(unserved.adjusted).toBe(0)
    expect(unserved.failedRounds).toBeGreaterThanOrEqual(4 * 3)
    expect(unserved.unsynced).toEqual([2, 3, 4, 5])
    // Nobody corrected anything: the clocks only drifted.
    expect(Math.abs(unserved.spreadAfter - unserved.spreadBefore)).toBeLessThan(5)
  })

  it('berkeley ignores the clock 5 s ahead in the average, corrects it still, and ends within its bound', () => {
    for (const seed of SEEDS) {
      const result = cleanResult(['berkeley', '--seed', String(seed)], {
        ...SYNC,
        far: isNumber,
        spreadBoundMs: isNumber,
        allowedMs: isNumber,
        rounds: isNumber,
        firstRound: shape({ ignored: ids, kept: ids, averageMs: isNumber }),
      })
      expect(result.far).toBe(5)
      expect(result.offsetsBefore['5']).toBeGreaterThan(4500)
      expect(result.firstRound.ignored).toEqual([5])
      expect(result.firstRound.kept.sort()).toEqual([1, 2, 3, 4])
      // The group's time is the average of the sane clocks, not dragged toward +5 s.
      expect(Math.abs(result.firstRound.averageMs)).toBeLessThan(400)
      expect(result.spreadBefore).toBeGreaterThan(4500)
      expect(result.spreadAfter).toBeLessThan(result.spreadBefore)
      expect(result.spreadAfter).toBeLessThanOrEqual(result.allowedMs)
      expect(result.allowedMs).toBeGreaterThanOrEqual(result.spreadBoundMs)
      expect(result.withinBound).toBe(true)
      expect(result.errors).toEqual(result.offsetsAfter)
      expect(result.stillSlewing).toEqual([])
      expect(result.rounds).toBe(11)
    }
  })

  it('berkeley reports a crashed node silent, and moves a crashed master to the lowest live id', () => {
    const quiet = cleanResult(['berkeley', '--crash', '3'], {
      ...SYNC,
      firstRound: shape({ silent: ids }),
    })
    expect(quiet.firstRound.silent).toEqual([3])
    expect(quiet.withinBound).toBe(true)

    const result = cleanResult(['berkeley', '--crash', '1'], {
      ...SYNC,
      master: isNumber,
      rounds: isNumber,
    })
    expect(result.master).toBe(2)
    expect(result.rounds).toBeGreaterThanOrEqual(10)
    expect(result.spreadAfter).toBeLessThan(result.spreadBefore)
    expect(result.withinBound).toBe(true)
  })

  it('temporal-order with Δ = (1 + ρ) D + π: nothing late, the same sequence at every member (several seeds)', () => {
    for (const seed of SEEDS) {
      for (const extra of [[], ['--crash', '1,4'], ['--n', '8']]) {
        const result = cleanResult(['temporal-order', '--seed', String(seed), ...extra], {
          ...TEMPORAL,
          delayBoundMs: isNumber,
          rho: isNumber,
          precisionMs: isNumber,
          sequence: arrayOf(isString),
        })
        expect(result.holdBackMs).toBeCloseTo(
          (1 + result.rho) * result.delayBoundMs + result.precisionMs,
          2,
        )
        expect(result.late).toBe(0)
        expect(result.sameSequence).toBe(true)
        expect(result.sequence).toHaveLength(result.broadcasts)
        for (const count of Object.values(result.delivered)) expect(count).toBe(result.broadcasts)
      }
    }
  })

  it('temporal-order-late: late messages are delivered, marked and counted, none lost', () => {
    const result = cleanResult(['temporal-order-late'], TEMPORAL)
    expect(result.holdBackMs).toBe(0)
    expect(result.late).toBeGreaterThan(0)
    expect(result.sameSequence).toBe(false)
    for (const count of Object.values(result.delivered)) expect(count).toBe(result.broadcasts)
  })

  it('draws the corrections and deliveries on the diagram', () => {
    expect(sd('run', 'cristian', '--width', '160').out).toMatch(
      /★ [+-]\d+(\.\d+)? ms ±\d+\.\d{3} \((slew|step)\)/,
    )
    expect(sd('run', 'berkeley', '--width', '160').out).toMatch(/★ round 1: average/)
    const temporal = sd('run', 'temporal-order', '--width', '160').out
    expect(temporal).toMatch(/★ m\d+\.\d+ ts=\d+\.\d{3}/)
    expect(temporal).not.toMatch(/LATE/)
    expect(sd('run', 'temporal-order-late', '--width', '160').out).toMatch(/LATE/)
  })
})

describe('the ntp scenario', () => {
  const NTP = {
    ...SYNC,
    servers: ids,
    falseticker: isNumber,
    falsetickers: ids,
    truechimers: ids,
    errorBoundMs: isNumber,
    estimatesWithinBound: isBoolean,
    selections: isNumber,
    adjusted: isNumber,
    failedPolls: isNumber,
    rejected: isNumber,
    unsynced: ids,
    crashed: ids,
  }
  const ntp = (...args: string[]) => {
    const { code, out } = json(['ntp', ...args])
    const { violations } = out
    if (!arrayOf(isString)(violations)) throw new Error(`violations: ${JSON.stringify(violations)}`)
    return { code, violations, result: resultOf(out, NTP) }
  }
  const clientsOf = (values: Record<string, number>) =>
    Object.fromEntries(Object.entries(values).filter(([id]) => Number(id) > 4))

  it('sd list shows it', () => {
    expect(sd('list').out).toMatch(/^\s*ntp\b/m)
  })

  it('leaves the falseticker out and brings every client within its bound of true time (several seeds)', () => {
    for (const seed of SEEDS) {
      const { code, violations, result } = ntp('--seed', String(seed))
      expect(code).toBe(0)
      expect(violations).toEqual([])
      expect(result.servers).toEqual([1, 2, 3, 4])
      expect(Object.keys(result.offsetsBefore)).toEqual(['1', '2', '3', '4', '5', '6', '7'])
      expect(result.offsetsBefore['4']).toBe(500)
      expect(result.errors['4']).toBe(500)
      expect(result.errors).toEqual(result.offsetsAfter)
      // The spreads are over the clients: the falseticker, a server, is not counted.
      expect(result.spreadBefore).toBeCloseTo(spreadOf(clientsOf(result.offsetsBefore)), 2)
      expect(result.spreadAfter).toBeCloseTo(spreadOf(clientsOf(result.offsetsAfter)), 2)
      expect(result.spreadAfter).toBeLessThan(result.spreadBefore)
      expect(result.spreadAfter).toBeLessThan(2 * result.errorBoundMs)
      expect(result.falsetickers).toEqual([4])
      expect(result.truechimers).toEqual([1, 2, 3])
      expect(result.withinBound).toBe(true)
      expect(result.estimatesWithinBound).toBe(true)
      expect(result.stillSlewing).toEqual([])
      expect(result.failedPolls).toBe(0)
      expect(result.rejected).toBe(0)
      expect(result.unsynced).toEqual([])
      // 3 clients, a poll every 500 ms for 8 s, each ending in a selection and a correction.
      expect(result.selections).toBe(3 * 16)
      expect(result.adjusted).toBe(3 * 16)
      for (const error of Object.values(clientsOf(result.errors)))
        expect(Math.abs(error)).toBeLessThanOrEqual(result.errorBoundMs + 1)
    }
  })

  it('holds with one client and with 12', () => {
    for (const n of ['5', '16']) {
      const { code, violations, result } = ntp('--n', n, '--seed', '3')
      expect(code).toBe(0)
      expect(violations).toEqual([])
      expect(result.falsetickers).toEqual([4])
      expect(result.withinBound).toBe(true)
      expect(result.unsynced).toEqual([])
    }
  })

  it('skips a crashed client, outvotes the falseticker with two truechimers, fails polls without a majority', () => {
    const client = ntp('--crash', '6')
    expect(client.code).toBe(0)
    expect(client.violations).toEqual([])
    expect(Object.keys(client.result.offsetsAfter)).toEqual(['1', '2', '3', '4', '5', '7'])
    expect(client.result.crashed).toEqual([6])
    expect(client.result.adjusted).toBe(2 * 16)
    expect(client.result.withinBound).toBe(true)

    const oneDown = ntp('--crash', '1')
    expect(oneDown.code).toBe(0)
    expect(oneDown.violations).toEqual([])
    expect(oneDown.result.falsetickers).toEqual([4])
    expect(oneDown.result.truechimers).toEqual([2, 3])
    expect(oneDown.result.spreadAfter).toBeLessThan(oneDown.result.spreadBefore)
    expect(oneDown.result.withinBound).toBe(true)

    // One truechimer against the falseticker, or no server at all: no majority, nothing corrected.
    for (const crash of ['2,3', '1,2,3,4']) {
      const { code, violations, result } = ntp('--crash', crash)
      expect(code).toBe(0)
      expect(violations).toEqual([])
      expect(result.adjusted).toBe(0)
      expect(result.selections).toBe(0)
      expect(result.failedPolls).toBe(3 * 16)
      expect(result.unsynced).toEqual([5, 6, 7])
      // Nobody corrected anything: the clocks only drifted.
      expect(Math.abs(result.spreadAfter - result.spreadBefore)).toBeLessThan(5)
    }
  })

  it('follows a lone server: right when it is a truechimer, reported when it is the falseticker', () => {
    const truechimer = ntp('--crash', '2,3,4')
    expect(truechimer.code).toBe(0)
    expect(truechimer.violations).toEqual([])
    expect(truechimer.result.truechimers).toEqual([1])
    expect(truechimer.result.withinBound).toBe(true)

    const { code, violations, result } = ntp('--crash', '1,2,3')
    expect(code).toBe(1)
    expect(result.truechimers).toEqual([4])
    expect(result.withinBound).toBe(false)
    expect(result.estimatesWithinBound).toBe(false)
    for (const id of [5, 6, 7]) {
      expect(violations).toContainEqual(
        expect.stringMatching(new RegExp(`^node ${id} at .* trusts the falseticker 4`)),
      )
      expect(violations).toContainEqual(expect.stringMatching(new RegExp(`^node ${id} ends \\+`)))
    }
  })

  it('draws the selections and corrections on the diagram', () => {
    const out = sd('run', 'ntp', '--width', '200').out
    expect(out).toMatch(/★ trusts 1,2,3,/)
    expect(out).toMatch(/★ [+-]\d+(\.\d+)? ms ±\d+\.\d{3}/)
    expect(sd('run', 'ntp', '--width', '200', '--crash', '2,3').out).toMatch(/★ no majority/)
  })
})
