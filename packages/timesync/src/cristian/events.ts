import type { AdjustedEvent, IgnoredEvent, SyncFailedEvent } from '../contract.js'

export type CristianEvent = AdjustedEvent | SyncFailedEvent | IgnoredEvent
