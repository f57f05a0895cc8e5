/**
 * A lock with leases and fencing tokens. A grant gives its holder a token and a lease end (in the
 * history's time); a holding ends when its holder releases it or when its lease ends. Two
 * holdings never overlap, and each grant's token is above every earlier one.
 *
 * When a grant took effect is known only to within its operation: `grantedBy` is the latest
 * moment it can have happened (the acquire's completion), so a grant is legal when the lock was
 * free then or the previous lease had ended by then. A pending acquire is taken to have granted
 * nothing anyone relied on (its client never learned its token); that can only accept more.
 */
import { InvalidArgumentError } from '../../errors.js'
import { partitionBy } from '../check.js'
import { combineHashes, hashValue } from '../hash.js'
import type { Model } from '../types.js'

export type LockClient = string | number

export type LockInput =
  | { f: 'acquire'; client: LockClient; grantedBy: number; key?: string | number }
  | { f: 'release'; client: LockClient; token: number; key?: string | number }

export interface LockGrant {
  token: number
  leaseEnd: number
}

/** An acquire's output is its grant; a release's is not looked at. */
export type LockOutput = LockGrant | undefined

export interface LockState {
  holder: LockClient | undefined
  token: number
  leaseEnd: number
  /** The newest token granted. */
  lastToken: number
}

const FREE: LockState = { holder: undefined, token: 0, leaseEnd: 0, lastToken: 0 }

export interface LockModelOptions {
  /**
   * A release of a token above every token granted so far (its acquire is not in the history):
   * `'fail'` (the default: a token never granted cannot be released) or `'ignore'` (a no-op): for
   * a recorded history whose acquires may be missing while their holders' releases are not.
   */
  strayRelease?: 'fail' | 'ignore'
}

export function lockModel(options: LockModelOptions = {}): Model<LockState, LockInput, LockOutput> {
  const ignoreStray = options.strayRelease === 'ignore'
  if (options.strayRelease !== undefined && !ignoreStray && options.strayRelease !== 'fail')
    throw new InvalidArgumentError(
      `lockModel: strayRelease must be 'fail' or 'ignore', got ${String(options.strayRelease)}`,
    )
  return {
    name: 'lock',
    init: () => FREE,
    step(state, input, output) {
      if (input.f === 'acquire') {
        if (output === undefined) return { ok: true, state }
        const held = state.holder !== undefined && state.leaseEnd > input.grantedBy
        const ok = !held && output.token > state.lastToken
        const { token, leaseEnd } = output
        return { ok, state: { holder: input.client, token, leaseEnd, lastToken: token } }
      }
      if (state.holder === input.client && state.token === input.token)
        return { ok: true, state: { ...state, holder: undefined } }
      // The release of a holding already ended (expired, or released) changes nothing; a token
      // never granted cannot be released (unless stray releases are ignored).
      return { ok: ignoreStray || input.token <= state.lastToken, state }
    },
    equal: (a, b) =>
      a.holder === b.holder &&
      a.token === b.token &&
      a.leaseEnd === b.leaseEnd &&
      a.lastToken === b.lastToken,
    hash: (s) =>
      combineHashes(hashValue(s.holder), hashValue(s.token), hashValue(s.leaseEnd), s.lastToken),
    partition: partitionBy((input) => input.key),
    // A holding is its grant and its release: shrinking drops them together.
    unitOf: (input, output) => (input.f === 'release' ? input.token : output?.token),
    describe(input, output) {
      if (input.f === 'release') return `${input.client} release(${input.token})`
      const grant = output === undefined ? '?' : `token ${output.token} until ${output.leaseEnd}`
      return `${input.client} acquire -> ${grant}`
    },
  }
}
