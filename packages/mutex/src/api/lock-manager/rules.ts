import type { LockMode } from '../../contract.js'
import { InvalidArgumentError } from '../../errors.js'
import type { AbortSignalLike } from '../signal.js'
import { LockNotSupportedError } from './errors.js'

export interface LockOptions {
  /** Default `'exclusive'`. */
  mode?: LockMode
  /** Only if grantable at once; otherwise the callback gets `null`. */
  ifAvailable?: boolean
  /** Takes the lock from its holders (their requests reject with `AbortError`). */
  steal?: boolean
  /** Gives up a request still waiting (it rejects with the signal's reason). */
  signal?: AbortSignalLike
}

/**
 * The Web Locks API's checks of a request, in the specification's order; what it rejects with,
 * or undefined when the request may go on.
 */
export function refusalOf(name: unknown, options: LockOptions): unknown {
  if (typeof name !== 'string') {
    return new InvalidArgumentError(`request: name must be a string, got ${String(name)}`)
  }
  const mode = options.mode ?? 'exclusive'
  if (mode !== 'exclusive' && mode !== 'shared') {
    return new InvalidArgumentError(
      `request: mode must be 'exclusive' or 'shared', got ${String(mode)}`,
    )
  }
  if (name.startsWith('-')) {
    return new LockNotSupportedError(
      `request: names starting with '-' are reserved: ${JSON.stringify(name)}`,
    )
  }
  if (options.steal === true && options.ifAvailable === true) {
    return new LockNotSupportedError('request: steal and ifAvailable cannot be used together')
  }
  if (options.steal === true && mode !== 'exclusive') {
    return new LockNotSupportedError("request: steal needs mode 'exclusive'")
  }
  if (options.signal !== undefined && (options.steal === true || options.ifAvailable === true)) {
    return new LockNotSupportedError('request: signal cannot be used with steal or ifAvailable')
  }
  if (options.signal?.aborted === true) return options.signal.reason
  return undefined
}
