import { InvalidArgumentError } from '@sd/transport'
import { checkInitialClock } from '../lamport/timestamp.js'

export interface RicartAgrawalaOptions {
  /**
   * Each node's Lamport clock before its first event: one value for all, or a record by node id
   * (unlisted nodes start at 0). The clock ticks before a request is sent, so a node set to 40
   * sends its first request with timestamp 41.
   */
  initialClock?: number | Readonly<Record<string, number>>
  /**
   * The texts' improvement: every REQUEST is answered at once, OK or DENY (DENY: the OK follows
   * later), so a requester can tell a crashed peer from a busy one. Default false.
   */
  alwaysAnswer?: boolean
  /**
   * With alwaysAnswer: how long (local ms) a requester waits for every peer's OK or DENY before it
   * emits `peer-suspected` for each silent one. Default 100.
   */
  answerTimeoutMs?: number
}

export interface RicartAgrawalaSettings {
  initialClock: number | Readonly<Record<string, number>> | undefined
  alwaysAnswer: boolean
  answerTimeoutMs: number
}

export const DEFAULT_ANSWER_TIMEOUT_MS = 100
export const DEFAULT_ALWAYS_ANSWER = false

/** Fills in the defaults and checks every value (`InvalidArgumentError` on a bad one). */
export function resolveOptions(options: RicartAgrawalaOptions = {}): RicartAgrawalaSettings {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError('ricartAgrawala: options must be an object')
  }
  checkInitialClock('ricartAgrawala', options.initialClock)
  if (options.alwaysAnswer !== undefined && typeof options.alwaysAnswer !== 'boolean') {
    throw new InvalidArgumentError(
      `ricartAgrawala: alwaysAnswer must be a boolean, got ${String(options.alwaysAnswer)}`,
    )
  }
  const alwaysAnswer = options.alwaysAnswer ?? DEFAULT_ALWAYS_ANSWER
  const t = options.answerTimeoutMs
  if (t !== undefined) {
    if (!(typeof t === 'number' && Number.isFinite(t) && t > 0)) {
      throw new InvalidArgumentError(
        `ricartAgrawala: answerTimeoutMs must be a finite number > 0, got ${String(t)}`,
      )
    }
    // Without DENY a silent peer may just be busy: a timeout would suspect the living.
    if (!alwaysAnswer) {
      throw new InvalidArgumentError('ricartAgrawala: answerTimeoutMs needs alwaysAnswer: true')
    }
  }
  return {
    initialClock: options.initialClock,
    alwaysAnswer,
    answerTimeoutMs: t ?? DEFAULT_ANSWER_TIMEOUT_MS,
  }
}
