/**
 * The burst property runs of centralized-modes-properties.test.ts can fail: a client that enters
 * on a kept grant asking for more permits than it holds, and one that makes entries on a grant
 * whose tokens the coordinator did not reserve, are both caught.
 */
import type { NodeId, Protocol } from '@sd/transport'
import { describe, expect, it, vi } from 'vitest'
import { seedList } from '../../../test-support/seeds.js'
import {
  type CentralizedEvent,
  type CentralizedMessage,
  type CentralizedOptions,
  type CentralizedRequest,
  centralized,
} from '../src/centralized/index.js'
import type { Hold, Want } from '../src/centralized/kinds.js'
import { seededModeRun, tokensBackwards } from './support/mode-runs.js'

const broken = vi.hoisted(() => ({ anyTake: false }))

// With `anyTake`, a kept permit grant is entered again whatever the permits asked.
vi.mock('../src/centralized/burst.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/centralized/burst.js')>()
  return {
    ...real,
    reusesGrant: (want: Want, held: Hold) =>
      broken.anyTake && want.permits !== undefined && held.permits !== undefined
        ? want.steal !== true
        : real.reusesGrant(want, held),
  }
})

const LEASES: CentralizedOptions = { leaseMs: 60, maxDelayMs: 30, resendEveryMs: 50 }

/** Clients that take every permit GRANT for a burst of 3, which a coordinator with `burst: 1` never reserved. */
function unreservedBursts(options: CentralizedOptions) {
  const inner = centralized(options)
  return (self: NodeId): Protocol<CentralizedMessage, CentralizedRequest, CentralizedEvent> => {
    const p = inner(self)
    return {
      ...p,
      onMessage(from, msg, ctx) {
        const m = msg as CentralizedMessage
        p.onMessage(from, m.type === 'grant' && m.permits ? { ...m, burst: 3 } : msg, ctx)
      },
    }
  }
}

describe('the burst properties can fail', () => {
  it('a client that enters a kept grant for more permits than it holds is caught', () => {
    let caught = 0
    broken.anyTake = true
    try {
      for (const seed of seedList(30)) {
        const r = seededModeRun(seed, 'permits', centralized({ ...LEASES, burst: 3 }), {
          steal: false,
          loops: 6,
        })
        if (r.violations.some((v) => / permits out of 3$/.test(v))) caught++
      }
    } finally {
      broken.anyTake = false
    }
    expect(caught).toBeGreaterThan(0)
  })

  it('entries on tokens the coordinator did not reserve are caught', () => {
    let caught = 0
    for (const seed of seedList(30)) {
      const r = seededModeRun(seed, 'permits', unreservedBursts({ ...LEASES, burst: 1 }), {
        steal: false,
        loops: 6,
      })
      const tokens = [...r.violations, ...tokensBackwards(r.events)]
      if (tokens.some((v) => /entered before|not above/.test(v))) caught++
    }
    expect(caught).toBeGreaterThan(0)
  })
})
