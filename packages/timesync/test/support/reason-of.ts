import { NtpRejectedError, type NtpRejectReason } from '../../src/ntp/errors.js'

/** The reason `f` was rejected with; throws if it was not rejected (or threw something else). */
export function reasonOf(f: () => unknown): NtpRejectReason {
  try {
    f()
  } catch (error) {
    if (error instanceof NtpRejectedError) return error.reason
    throw error
  }
  throw new Error('expected a rejection')
}
