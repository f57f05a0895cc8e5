import type { NodeId } from '@sd/transport'
import type { LockQueryRequest, MutexRequest, ViewRequest } from '../contract.js'

/** Moves the coordinator (what an election composed on the node sends through wiring). */
export interface CoordinatorRequest {
  type: 'coordinator'
  id: NodeId
  term: number
}

/** This node no longer coordinates `term` (its leader stepped down or lost the lead). */
export interface CoordinatorLostRequest {
  type: 'coordinator-lost'
  term: number
}

/**
 * This node, coordinator of `term`, may grant until `until` on its own `ctx.monotonic()` (the
 * leader lease its election holds); with `leaderLease`, it grants nothing without one.
 */
export interface CoordinatorLeaseRequest {
  type: 'coordinator-lease'
  term: number
  until: number
}

/** What a node running `centralized()` accepts: the contract's acquire / release, and the moves of its coordinator. */
export type CentralizedRequest =
  | MutexRequest
  | LockQueryRequest
  | CoordinatorRequest
  | CoordinatorLostRequest
  | CoordinatorLeaseRequest
  | ViewRequest
