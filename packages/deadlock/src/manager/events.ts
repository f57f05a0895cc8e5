import type { DeadlockManagerEvent } from '../contract.js'

/**
 * What a site of the resource manager emits: every event of the contract (waits, grants and
 * releases, aborts, deadlocks, phantoms) and `ignored` for each message it drops, since the
 * checker judges the trace of them all.
 */
export type ManagerEvent = DeadlockManagerEvent
