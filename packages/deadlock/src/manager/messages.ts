import {
  arrayOf,
  intIn,
  isFiniteNumber,
  isNodeId,
  isNonNegInt,
  isString,
  messageParser,
  type NodeId,
  shape,
} from '@sd/transport'
import type { ProcessId } from '../contract.js'

/** A process and the site that runs it (where its locks are requested from and aborts go). */
export interface ProcRef {
  id: ProcessId
  home: NodeId
  /** Its timestamp, kept across restarts: the older (smaller) one wins conflicts. */
  timestamp: number
}

/** Messages between the sites of the resource manager and its detectors. */
export type ManagerMessage =
  // A home asks a resource's site for its lock; the site answers grant, blocked or die.
  | { type: 'lock-request'; proc: ProcRef; resource: string; req: number }
  | { type: 'lock-grant'; process: ProcessId; resource: string; req: number }
  | {
      type: 'lock-blocked'
      process: ProcessId
      resource: string
      req: number
      holder: ProcRef
      /** Grows with every notice of the site: a reordered older notice (an old holder) loses. */
      seq: number
    }
  | { type: 'lock-die'; process: ProcessId; resource: string; req: number }
  // A home lets go of a lock it holds, or of a request still queued.
  | { type: 'lock-release'; process: ProcessId; resource: string; req: number }
  // Wound-wait: the holder must abort (sent to its home).
  | { type: 'wound'; process: ProcessId; resource: string; req: number }
  // Chandy-Misra-Haas: `sender` waits for `receiver`, which holds `resource`; `path` so far.
  | {
      type: 'probe'
      initiator: ProcessId
      /** The initiator's wait number at its home: a probe belongs to one wait of its initiator. */
      computation: number
      sender: ProcessId
      receiver: ProcessId
      resource: string
      path: PathEntry[]
    }
  // The cycle a returned probe found, checked once more hop by hop before anyone is aborted.
  | { type: 'verify'; path: PathEntry[]; index: number }
  // Resolution: the victim's home aborts it.
  | { type: 'abort'; process: ProcessId }
  // Centralized detection.
  | { type: 'collect'; round: number }
  | {
      type: 'local-waits'
      round: number
      waits: SiteWait[]
    }
  | { type: 'confirm'; round: number; ids: string[] }
  | { type: 'confirmed'; round: number; present: string[] }

/** @deprecated Use ManagerMessage. */
export type ManagerMsg = ManagerMessage

/** One wait of a site's lock table, as centralized detection collects it. */
export interface SiteWait {
  from: ProcRef
  to: ProcRef
  resource: string
  /** The wait instance: a new request or a new holder is a new id. */
  id: string
}

/** A process on a probe's path, with the instances that made the edges in and out of it. */
export interface PathEntry {
  ref: ProcRef
  /** Its pending request (the wait out of it) when the probe passed. */
  req: number
  /** The resource it waits for. */
  resource: string
  /** Its hold on the resource the previous process waits for (the wait into it). */
  heldReq: number
}

/** Far above any real path or table, low enough that a forged one costs little to refuse. */
const MAX_ITEMS = 100_000

const isProcRef = shape({ id: isNodeId, home: isNodeId, timestamp: isFiniteNumber })
const isPathEntry = shape({
  ref: isProcRef,
  req: isNonNegInt,
  resource: isString,
  // -1: the initiator's hold, not known until the probe returns.
  heldReq: intIn(-1, Number.MAX_SAFE_INTEGER),
})
const isPath = arrayOf(isPathEntry, { min: 1, max: MAX_ITEMS })
const isSiteWait = shape({ from: isProcRef, to: isProcRef, resource: isString, id: isString })
const strings = arrayOf(isString, { max: MAX_ITEMS })

const onLock = { process: isNodeId, resource: isString, req: isNonNegInt }

/**
 * The message typed, or why it is refused: a peer may send anything, and what does not fit is
 * dropped and reported as `ignored`.
 */
export const parseMessage = messageParser<ManagerMessage>({
  'lock-request': { proc: isProcRef, resource: isString, req: isNonNegInt },
  'lock-grant': onLock,
  'lock-blocked': { ...onLock, holder: isProcRef, seq: isNonNegInt },
  'lock-die': onLock,
  'lock-release': onLock,
  wound: onLock,
  probe: {
    initiator: isNodeId,
    computation: isNonNegInt,
    sender: isNodeId,
    receiver: isNodeId,
    resource: isString,
    path: isPath,
  },
  verify: { path: isPath, index: isNonNegInt },
  abort: { process: isNodeId },
  collect: { round: isNonNegInt },
  'local-waits': { round: isNonNegInt, waits: arrayOf(isSiteWait, { max: MAX_ITEMS }) },
  confirm: { round: isNonNegInt, ids: strings },
  confirmed: { round: isNonNegInt, present: strings },
})
