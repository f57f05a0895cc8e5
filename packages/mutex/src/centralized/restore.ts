import type { NodeId } from '@sd/transport'
import { type Snapshot, snapshotFields } from '../snapshot.js'
import type { CentralizedMessage } from './messages.js'

/** A node's snapshot (protocol.ts `snapshot`), read back for `restore()`: its roles still as data. */
export interface CentralizedState {
  term: number
  coordinator: NodeId
  epoch: number
  coordinatorEpoch: number
  leaderLease: { term: number; until: number } | undefined
  coordinatorRole: Snapshot
  group: Snapshot
  pendingRecover: { from: NodeId; msg: CentralizedMessage & { type: 'recover' } } | undefined
  syncedView: number
  client: Snapshot
}

/** Refuses (`InvalidArgumentError`) a snapshot that is not the object `snapshot()` gives. */
export function centralizedState(snapshot: unknown): CentralizedState {
  const s = snapshotFields(snapshot, 'centralized()', [
    'term',
    'coordinator',
    'epoch',
    'coordinatorEpoch',
    'leaderLease',
    'coordinatorRole',
    'group',
    'pendingRecover',
    'syncedView',
    'client',
  ])
  const lease = s.leaderLease as { term: number; until: number | string } | null
  const pending = s.pendingRecover as NonNullable<CentralizedState['pendingRecover']> | null
  return {
    term: s.term as number,
    coordinator: s.coordinator as NodeId,
    epoch: s.epoch as number,
    coordinatorEpoch: s.coordinatorEpoch as number,
    // An infinite `until` was written as a string (JSON has no number for it).
    leaderLease: lease === null ? undefined : { term: lease.term, until: Number(lease.until) },
    coordinatorRole: s.coordinatorRole as Snapshot,
    group: s.group as Snapshot,
    pendingRecover: pending === null ? undefined : { from: pending.from, msg: { ...pending.msg } },
    syncedView: s.syncedView as number,
    client: s.client as Snapshot,
  }
}
