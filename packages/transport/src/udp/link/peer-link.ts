import type { NodeId } from '../../ids.js'
import type { UdpAddress } from '../address.js'
import type { Reassembler } from '../fragments.js'
import { ReplayWindow } from '../replay-window.js'
import { type ResolvedRetransmit, RttEstimator } from '../rtt.js'
import type { FragmentInfo } from '../wire/header.js'
import { AckTracker } from './ack-tracker.js'
import { LossRecovery } from './loss-recovery.js'
import { ReceiveLink, SendQueue } from './send-queue.js'

/** How many past incarnations of a peer are remembered (their late datagrams are refused). */
export const RETIRED_INCARNATIONS = 16
/** Packet numbers remembered from unconfirmed incarnations, to refuse their replays. */
export const UNCONFIRMED_MEMORY = 64

export interface Incoming {
  payload: Uint8Array
  frag: FragmentInfo | undefined
  bundle: boolean
}

/**
 * Everything known about one link: this node and one address book entry. The link has its own
 * incarnation on our side (`localInc`), drawn afresh whenever the entry is (re)created, so a
 * peer that was removed and added again meets the other side as a new link, never half of an old one.
 */
export interface PeerLink {
  readonly id: NodeId
  readonly idField: Buffer
  /** Payload bytes per datagram to this peer, whole and as a fragment. */
  readonly room: number
  readonly fragmentRoom: number
  address: UdpAddress
  /** Our incarnation on this link; never 0. */
  readonly localInc: number
  /** The peer's confirmed incarnation; 0 until the first handshake or datagram addressed to us. */
  inc: number
  /** Next packet number of ours on this link. */
  nextPn: number
  /** Recent incarnations it had before, refused from now on. */
  retired: number[]
  /** Recent (incarnation, packet number) pairs from unconfirmed incarnations. */
  unconfirmed: Array<{ inc: number; pn: number }>
  /** Outstanding handshake challenge (0 = none), its transmissions and retransmission deadline. */
  helloNonce: number
  helloAttempts: number
  helloDeadline: number
  queue: SendQueue
  recovery: LossRecovery
  recv: ReceiveLink<Incoming>
  acks: AckTracker
  replay: ReplayWindow
  reassembly: Reassembler
  rtt: RttEstimator
  nextMsgId: number
  /** Earliest time something of this link is due (loss, probe or handshake timer). */
  deadline: number
}

export function createPeerLink(fields: {
  id: NodeId
  idField: Buffer
  address: UdpAddress
  room: number
  fragmentRoom: number
  localInc: number
  receiveWindow: number
  sendWindow: number
  reassembly: Reassembler
  retransmit: ResolvedRetransmit
  /** The peer's max ack delay, added to the probe timeout. */
  peerAckDelayMs: number
}): PeerLink {
  const rtt = new RttEstimator(fields.retransmit)
  return {
    id: fields.id,
    idField: fields.idField,
    room: fields.room,
    fragmentRoom: fields.fragmentRoom,
    address: fields.address,
    localInc: fields.localInc,
    inc: 0,
    nextPn: 0,
    retired: [],
    unconfirmed: [],
    helloNonce: 0,
    helloAttempts: 0,
    helloDeadline: Number.POSITIVE_INFINITY,
    queue: new SendQueue(),
    recovery: new LossRecovery(rtt, fields.sendWindow, fields.peerAckDelayMs),
    recv: new ReceiveLink<Incoming>(fields.receiveWindow),
    acks: new AckTracker(),
    replay: new ReplayWindow(),
    reassembly: fields.reassembly,
    rtt,
    nextMsgId: 0,
    deadline: Number.POSITIVE_INFINITY,
  }
}

/**
 * Replay check for datagrams from an incarnation not (yet) confirmed, which has no replay window:
 * a short memory of (incarnation, packet number) pairs. Records the pair when it is new.
 */
export function seenRecently(peer: PeerLink, inc: number, pn: number): boolean {
  for (const seen of peer.unconfirmed) if (seen.inc === inc && seen.pn === pn) return true
  peer.unconfirmed.push({ inc, pn })
  if (peer.unconfirmed.length > UNCONFIRMED_MEMORY) peer.unconfirmed.shift()
  return false
}
