import { InvalidArgumentError } from '../errors.js'
import type { NodeId } from '../ids.js'

/**
 * How long a message spends on a link, in virtual ms:
 * a number (fixed), a distribution, or a function of the seeded random source.
 */
export type LatencyModel =
  | number
  | { kind: 'fixed'; ms: number }
  | { kind: 'uniform'; min: number; max: number }
  /** `min` plus an exponential with the given mean (a long tail). */
  | { kind: 'exponential'; mean: number; min?: number }
  | ((random: () => number, from: NodeId, to: NodeId) => number)

export type LatencySampler = (random: () => number, from: NodeId, to: NodeId) => number

/** Validates a model once and turns it into a sampler. */
export function latencySampler(model: LatencyModel, where: string): LatencySampler {
  if (typeof model === 'function') {
    return (random, from, to) => {
      const ms = model(random, from, to)
      if (!(ms >= 0) || !Number.isFinite(ms)) {
        throw new InvalidArgumentError(
          `${where}: custom latency returned ${ms} for ${JSON.stringify(from)} -> ${JSON.stringify(to)}; it must be a finite number >= 0`,
        )
      }
      return ms
    }
  }
  if (typeof model === 'number') return fixed(nonNegative(model, `${where} latency`))
  switch (model.kind) {
    case 'fixed':
      return fixed(nonNegative(model.ms, `${where} latency.ms`))
    case 'uniform': {
      const min = nonNegative(model.min, `${where} latency.min`)
      const max = nonNegative(model.max, `${where} latency.max`)
      if (max < min)
        throw new InvalidArgumentError(
          `${where}: latency.max (${max}) is below latency.min (${min})`,
        )
      const span = max - min
      return (random) => min + random() * span
    }
    case 'exponential': {
      const mean = nonNegative(model.mean, `${where} latency.mean`)
      const min = nonNegative(model.min ?? 0, `${where} latency.min`)
      return (random) => min - mean * Math.log(1 - random())
    }
    default:
      throw new InvalidArgumentError(
        `${where}: unknown latency kind ${JSON.stringify((model as { kind: unknown }).kind)}`,
      )
  }
}

function fixed(ms: number): LatencySampler {
  return () => ms
}

export function nonNegative(value: number, what: string): number {
  if (typeof value !== 'number' || !(value >= 0) || !Number.isFinite(value)) {
    throw new InvalidArgumentError(`${what} must be a finite number >= 0, got ${value}`)
  }
  return value
}

export function probability(value: number, what: string): number {
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) {
    throw new InvalidArgumentError(`${what} must be a probability in [0, 1], got ${value}`)
  }
  return value
}
