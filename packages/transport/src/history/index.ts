/**
 * `@sd/transport/history`: histories of operations and a linearizability checker (Wing & Gong's
 * search with Lowe's memo and P-compositionality, as Porcupine runs it). See the package README,
 * "Checking histories".
 */
export { checkHistory, checkHistoryAsync, partitionBy } from './check.js'
export {
  type EmittedHistoryEvent,
  type HistoryEvent,
  historyFromEvents,
  historyFromTrace,
  historyToEvents,
  type InputOf,
  type OperationId,
  type OutputOf,
} from './events.js'
export { describeOperations } from './format.js'
export { combineHashes, hashString, hashValue } from './hash.js'
export { type CounterInput, type CounterOutput, counterModel } from './models/counter.js'
export {
  type LockClient,
  type LockGrant,
  type LockInput,
  type LockModelOptions,
  type LockOutput,
  type LockState,
  lockModel,
} from './models/lock.js'
export {
  type RegisterInput,
  type RegisterKey,
  type RegisterOutput,
  registerModel,
} from './models/register.js'
export type {
  AbortSignalLike,
  CheckOptions,
  CheckResult,
  Model,
  Operation,
  StepResult,
} from './types.js'
