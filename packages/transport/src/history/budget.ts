/** The steps a check may still take, shared by its parts and its shrinking. */
import type { AbortSignalLike } from './types.js'

export class StepBudget {
  used = 0
  stopped: 'max-steps' | 'aborted' | undefined

  constructor(
    private readonly max: number,
    private readonly signal: AbortSignalLike | undefined,
  ) {}

  /** Counts one step; false once the budget is spent or the signal aborted. */
  take(): boolean {
    if (this.stopped !== undefined) return false
    if (this.used >= this.max) this.stopped = 'max-steps'
    else if ((this.used & 1023) === 0 && this.signal?.aborted) this.stopped = 'aborted'
    else {
      this.used++
      return true
    }
    return false
  }
}
