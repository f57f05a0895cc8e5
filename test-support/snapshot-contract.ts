import type { NodeId } from '@sd/transport'
import { expect } from 'vitest'
import { forSeeds } from './seeds.js'

/**
 * Test helpers for the `snapshot()` contract (plain, canonical, deterministic data), shared by the
 * packages' snapshot tests.
 */

/** Why `value` is not plain data (its path and what is wrong), or undefined when it is. */
export function notPlain(value: unknown, path = '$'): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined
  if (typeof value === 'number')
    return Number.isFinite(value) ? undefined : `${path} is ${String(value)}`
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) return `${path}[${i}] is a hole`
      const why = notPlain(value[i], `${path}[${i}]`)
      if (why) return why
    }
    return undefined
  }
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null)
      return `${path} is a ${proto?.constructor?.name ?? 'non-plain object'}`
    for (const [key, v] of Object.entries(value)) {
      const why = notPlain(v, `${path}.${key}`)
      if (why) return why
    }
    return undefined
  }
  return `${path} is ${typeof value}`
}

/** The text a snapshot is compared by (plain data, so JSON is exact). */
export const text = (snapshot: unknown): string => JSON.stringify(snapshot)

interface WithSnapshot {
  snapshot?(): unknown
}

/**
 * Wraps a factory so every handler is followed by a snapshot of the node, checked plain and
 * side-effect free (a second snapshot equals the first even after the first was scribbled on).
 * `log` holds each node's snapshots as text, in step order.
 */
export function recordingSnapshots<F extends (self: NodeId) => object & WithSnapshot>(
  factory: F,
): { factory: F; log: Map<NodeId, string[]>; problems: string[] } {
  const log = new Map<NodeId, string[]>()
  const problems: string[] = []
  const take = (self: NodeId, p: WithSnapshot, step: string) => {
    if (typeof p.snapshot !== 'function') {
      problems.push(`${String(self)}: no snapshot()`)
      return
    }
    const first = p.snapshot()
    const why = notPlain(first)
    if (why) problems.push(`${String(self)} after ${step}: ${why}`)
    const before = text(first)
    scribble(first)
    const again = text(p.snapshot())
    if (again !== before) problems.push(`${String(self)} after ${step}: snapshot shares state`)
    const list = log.get(self) ?? []
    log.set(self, list)
    list.push(before)
  }
  const wrapped = (self: NodeId) => {
    const p = factory(self) as Record<string, unknown> & WithSnapshot
    const out: Record<string, unknown> = { ...p }
    for (const key of ['start', 'onMessage', 'onTimer', 'onRequest', 'onSignal']) {
      const handler = p[key]
      if (typeof handler !== 'function') continue
      out[key] = (...args: unknown[]) => {
        try {
          return handler.apply(p, args)
        } finally {
          take(self, p, key)
        }
      }
    }
    out.snapshot = () => p.snapshot?.()
    return out
  }
  return { factory: wrapped as F, log, problems }
}

/** Overwrites what a snapshot holds, to show a later snapshot does not share it. */
function scribble(value: unknown): void {
  if (Array.isArray(value)) {
    for (const v of value) scribble(v)
    value.push('scribbled')
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) scribble(v)
    ;(value as Record<string, unknown>).scribbled = true
  }
}

/**
 * Over `seeds`, a recorded run (`recordingSnapshots` around a seeded simulation) must have plain,
 * unshared snapshots after every step, give the same snapshots when run again with the same seed,
 * and move some node's state (a run in which nothing changes checks nothing).
 */
export function expectSoundSnapshots(
  seeds: readonly number[],
  run: (seed: number) => { log: Map<NodeId, string[]>; problems: string[] },
): void {
  forSeeds(seeds, (seed) => {
    const first = run(seed)
    expect(first.problems, `seed ${seed}`).toEqual([])
    const second = run(seed)
    expect([...second.log], `seed ${seed}: same inputs, same snapshots`).toEqual([...first.log])
    const moved = [...first.log.values()].some((snaps) => new Set(snaps).size > 1)
    expect(moved, `seed ${seed}: some node's state changed`).toBe(true)
  })
}
