import { InvalidArgumentError } from '@sd/transport'
import { checkInitialClock } from './timestamp.js'

export interface LamportMutexOptions {
  /**
   * Each node's Lamport clock before its first event: one value for all, or a record by node id
   * (unlisted nodes start at 0). The clock ticks before a request is sent.
   */
  initialClock?: number | Readonly<Record<string, number>>
}

export interface LamportMutexSettings {
  initialClock: number | Readonly<Record<string, number>> | undefined
}

/** Checks every value (`InvalidArgumentError` on a bad one). */
export function resolveOptions(options: LamportMutexOptions = {}): LamportMutexSettings {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError('lamportMutex: options must be an object')
  }
  checkInitialClock('lamportMutex', options.initialClock)
  return { initialClock: options.initialClock }
}
