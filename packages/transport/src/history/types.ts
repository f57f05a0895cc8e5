/**
 * The vocabulary of the linearizability checker: operations of a history, the sequential model
 * they are judged against, and the checker's answer.
 */

/**
 * One operation as a client saw it: what it asked (`input`), what it was told (`output`), when it
 * asked (`invokedAt`) and when it was answered (`completedAt`). Without `completedAt` the
 * operation is pending (Jepsen's `info`): it may have taken effect at any time after its
 * invocation, or never, and its output is unknown.
 */
export interface Operation<I, O> {
  client: string | number
  input: I
  output?: O
  invokedAt: number
  completedAt?: number
  /** The caller's own name for the operation, kept in the answer (e.g. its place in a file). */
  id?: string | number
}

/** Whether an operation could have taken effect here, and the state after it if so. */
export interface StepResult<S> {
  ok: boolean
  state: S
}

/**
 * A sequential specification. `step` is called with `output` undefined for a pending operation:
 * it then answers whether the operation can take effect in this state (it may also never take
 * effect, which the checker tries on its own).
 */
export interface Model<S, I, O> {
  /** Names the model in messages. */
  name: string
  init(): S
  step(state: S, input: I, output: O | undefined): StepResult<S>
  equal(a: S, b: S): boolean
  /** A 32-bit hash consistent with `equal` (equal states hash alike). */
  hash(state: S): number
  /**
   * P-compositionality: splits a history into parts that are each checked alone (e.g. by key). A
   * history is linearizable when every part is. Parts keep the operations' order.
   */
  partition?(operations: readonly Operation<I, O>[]): Operation<I, O>[][]
  /** How an operation reads in a message or a report. */
  describe?(input: I, output: O | undefined): string
  /**
   * Operations that stand or fall together when a failing history is shrunk: those with the same
   * unit are kept or dropped as one (a grant and its release; a write and the reads of its value).
   * Without it, dropping a release alone would leave its holding open to its lease's end, and
   * dropping a write alone would leave its reads reading a value never written: failures the
   * whole history never had. Undefined: the operation is a unit of its own.
   */
  unitOf?(input: I, output: O | undefined): string | number | undefined
}

/** What a DOM or Node AbortSignal offers the checker; declared here so no DOM or Node types are needed. */
export interface AbortSignalLike {
  readonly aborted: boolean
}

export interface CheckOptions {
  /**
   * The most search steps (operations tried) over the whole check, shrinking included; past it the
   * answer is `unknown`. Default 10,000,000.
   */
  maxSteps?: number
  /**
   * Polled every 1,024 steps; once aborted the answer is `unknown`. `checkHistory` is
   * synchronous: an abort from a timer lands only under `checkHistoryAsync`.
   */
  signal?: AbortSignalLike
  /** Remember (linearized set, state) pairs already explored. Default true; off only to measure. */
  memoize?: boolean
  /** Check the model's parts one by one. Default true; off only to measure. */
  partition?: boolean
  /** Look for a minimal non-linearizable sub-history when one part fails. Default true. */
  shrink?: boolean
}

export type CheckResult<I, O> =
  | { verdict: 'linearizable'; steps: number; parts: number }
  | {
      verdict: 'not-linearizable'
      steps: number
      parts: number
      /** The operations of the part that failed, as given. */
      part: Operation<I, O>[]
      /**
       * A sub-history of that part that is not linearizable, minimal when `minimal` is true:
       * dropping any one of its operations makes it linearizable.
       */
      counterexample: Operation<I, O>[]
      minimal: boolean
      /** The longest order of the part's operations found legal before the search gave up. */
      longestPrefix: Operation<I, O>[]
      /**
       * The operation the search could not get past: no legal order placed it before its
       * completion (of those, the one that completed last). Often the read that saw too much or
       * too little; the counterexample, being minimal, may show the failure through another one.
       */
      stuck: Operation<I, O>
    }
  | {
      verdict: 'unknown'
      steps: number
      parts: number
      reason: 'max-steps' | 'aborted'
    }
