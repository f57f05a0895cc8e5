import type { NodeId } from '@sd/transport'
import type { LockStateEvent, MutexEvent, PermitCount, UnavailableEvent } from '../contract.js'
import type { Hold } from './kinds.js'

/**
 * What a node running `centralized()` emits: the contract's `acquired` (with `leaseMs` when leases
 * are on) / `released`, and:
 * - client side: `denied` (a refusal, retried after `retryInMs`), `coordinator-unreachable` (no
 *   answer within the timeout; the request stays pending until a new coordinator is known),
 *   `lease-renewed` (a renewal extended the holder's lease: valid `validForMs` from now),
 *   `grant-late` (a GRANT that came after the lease it gives, counted from when the request it
 *   answers left: the request goes again, and the node enters on the fresh GRANT),
 *   `lease-lost` (always followed by `released`: the node no longer holds the resource; reason
 *   `'stolen'` when another node's `steal` took it), `unavailable` (an `ifAvailable` acquire
 *   not grantable at once: forgotten), `limit-mismatch` (permits of another limit than the
 *   resource's entries use: forgotten), `coordinator-changed`, `not-in-view` (an acquire made, or
 *   waiting, while this node is not in its installed view: refused or dropped);
 * - coordinator side: `requested` (a request accepted, in the order received), `granted`
 *   (shared and permit ones with their `mode` / `permits`), `lease-expired` (also a steal's victim
 *   that never acknowledged), `left-out` (without leases: an entry, or a steal's victim, of a node a
 *   view left out, released), `stolen` (a holder's entry revoked for `by`, which is granted once
 *   every victim acknowledged or expired), `lock-delay` / `lock-delay-over` (with `lockDelayMs`: what an expired
 *   lease held stays taken that long), `recovering` / `recovered` (after a change or a restart, before the first
 *   grant), `coordinator-stopped` (this node no longer coordinates `term`: its leader stepped down);
 * - `lock-state`: the coordinator's answer to a local `query` (its holders and queues);
 * - `ignored`: a malformed or out-of-date message or request, never thrown.
 */
export type CentralizedEvent =
  | MutexEvent
  | { type: 'denied'; resource: string; retryInMs: number }
  | { type: 'coordinator-unreachable'; coordinator: NodeId; term: number }
  | { type: 'lease-renewed'; resource: string; token: number; validForMs: number }
  | { type: 'grant-late'; resource: string; token: number }
  | UnavailableEvent
  | { type: 'limit-mismatch'; resource: string; permits: PermitCount; limit: number }
  | {
      type: 'lease-lost'
      resource: string
      token: number
      reason: 'expired' | 'revoked' | 'stolen'
    }
  | { type: 'coordinator-changed'; coordinator: NodeId; term: number }
  | { type: 'not-in-view'; resource: string; view: number }
  | { type: 'coordinator-stopped'; term: number }
  | ({ type: 'requested'; resource: string; node: NodeId } & Hold)
  | ({ type: 'granted'; resource: string; node: NodeId; token: number } & Hold)
  | { type: 'lease-expired'; resource: string; node: NodeId; token: number }
  | { type: 'left-out'; resource: string; node: NodeId; token: number }
  | { type: 'stolen'; resource: string; node: NodeId; token: number; by: NodeId }
  | { type: 'lock-delay'; resource: string; node: NodeId; token: number; delayMs: number }
  | { type: 'lock-delay-over'; resource: string; token: number }
  | { type: 'recovering'; term: number }
  | { type: 'recovered'; term: number; heardFrom: NodeId[] }
  | LockStateEvent
  | { type: 'ignored'; from: NodeId; reason: string }
