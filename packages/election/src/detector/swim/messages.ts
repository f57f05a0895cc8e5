import {
  arrayOf,
  intIn,
  isNodeId,
  isNonNegInt,
  messageParser,
  type NodeId,
  oneOf,
  shape,
} from '@sd/transport'
import type { MemberState, MemberUpdate } from './members.js'

/**
 * What SWIM nodes say. Every message carries `updates`: membership news piggybacked on the
 * probes, so dissemination costs no message of its own.
 */
export type SwimMessage =
  /** Are you alive? `seq` is the prober's, echoed in the ack. */
  | { type: 'ping'; seq: number; updates: MemberUpdate[] }
  /** Yes (directly, or relayed by a helper of an indirect probe, with the requester's seq). */
  | { type: 'ack'; seq: number; updates: MemberUpdate[] }
  /** The direct ping to `target` went unanswered: ping it for me, answer with my `seq`. */
  | { type: 'ping-req'; seq: number; target: NodeId; updates: MemberUpdate[] }
  /** Lifeguard: the helper asked by ping-req `seq` heard nothing from the target either. */
  | { type: 'nack'; seq: number; updates: MemberUpdate[] }
  /** From a process that wants in, to one of its seeds; `incarnation` is its own. */
  | { type: 'join'; incarnation: number }
  /** The seed's answer to a join: its member list, tombstones included (at most MAX_MEMBERS). */
  | { type: 'welcome'; members: MemberEntry[] }

/** One member as a welcome lists it. */
export interface MemberEntry {
  node: NodeId
  state: MemberState
  incarnation: number
}

/** Updates per message accepted at most: a peer cannot make us handle a flood in one step. */
export const MAX_UPDATES = 64

/** Below 2^52: a refutation adds one, and must stay a safe integer whatever a peer claimed. */
export const MAX_INCARNATION = 2 ** 52
const isIncarnation = intIn(0, MAX_INCARNATION)

/** Entries a welcome may list, and the highest `maxMembers`: a peer cannot make us take more. */
export const MAX_MEMBERS = 4096

const isUpdate = shape({
  kind: oneOf('alive', 'suspect', 'dead', 'left'),
  node: isNodeId,
  incarnation: isIncarnation,
  from: isNodeId,
})
const isEntry = shape({
  node: isNodeId,
  state: oneOf('alive', 'suspect', 'dead', 'left'),
  incarnation: isIncarnation,
})
const entries = arrayOf(isEntry, { max: MAX_MEMBERS }) as (v: unknown) => v is MemberEntry[]
const updates = arrayOf(isUpdate, { max: MAX_UPDATES }) as (v: unknown) => v is MemberUpdate[]

export const parseMessage = messageParser<SwimMessage>({
  ping: { seq: isNonNegInt, updates },
  ack: { seq: isNonNegInt, updates },
  'ping-req': { seq: isNonNegInt, target: isNodeId, updates },
  nack: { seq: isNonNegInt, updates },
  join: { incarnation: isIncarnation },
  welcome: { members: entries },
})
