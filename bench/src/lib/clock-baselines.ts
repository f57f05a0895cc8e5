/**
 * The vector clock libraries a user would pick instead of @sd/clocks, loaded with types, and a
 * fair way to time several contenders at once.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { median, opsPerSecond, type RateOptions } from './measure.js'

const require = createRequire(import.meta.url)

type ObjClock = Record<string, number>

/** `vectorclock@0.0.0` (mixu): plain-object clocks, functions over them. It ships no types. */
export interface VectorclockLib {
  increment(clock: ObjClock, id: string): ObjClock
  merge(a: ObjClock, b: ObjClock): ObjClock
  /** -1 before, 1 after, 0 equal or concurrent. */
  compare(a: ObjClock, b: ObjClock): number
}

export const vectorclock = require('vectorclock') as VectorclockLib

export const vectorclockName = `vectorclock@${packageVersion('vectorclock')}`
export const thingName = `@thi.ng/vclock@${packageVersion('@thi.ng/vclock')}`

function packageVersion(name: string): string {
  const main = require.resolve(name)
  const root = main.slice(0, main.lastIndexOf(`${name}/`) + name.length + 1)
  return (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { version: string }).version
}

/**
 * Times several contenders sample by sample in turn (A, B, C, A, B, C...), so that noise on a
 * shared machine hits all alike. Returns each one's median ops/s and its samples.
 */
export function compareMany(
  contenders: Record<string, () => number>,
  options: RateOptions = {},
): Record<string, { median: number; samples: number[] }> {
  const samples = options.samples ?? 5
  const rates: Record<string, number[]> = {}
  for (const name of Object.keys(contenders)) rates[name] = []
  for (let s = 0; s < samples; s++) {
    for (const [name, batch] of Object.entries(contenders)) {
      rates[name]!.push(opsPerSecond(batch, { ...options, samples: 1 }).median)
    }
  }
  const out: Record<string, { median: number; samples: number[] }> = {}
  for (const [name, list] of Object.entries(rates))
    out[name] = { median: median(list), samples: list }
  return out
}
