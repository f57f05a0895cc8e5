import type { NodeId } from '../ids.js'
import type { UdpAddress } from './address.js'
import type { Reassembler } from './fragments.js'
import { ReceiveLink, SendLink } from './reliable-link.js'
import { ReplayWindow } from './replay-window.js'
import type { RttEstimator } from './rtt.js'
import type { FragmentInfo } from './wire/header.js'

/** How many past incarnations of a peer are remembered (their late datagrams are refused). */
export const RETIRED_INCARNATIONS = 16
/** Packet numbers remembered from unconfirmed incarnations, to refuse their replays. */
export const UNCONFIRMED_MEMORY = 64

export interface Incoming {
  payload: Uint8Array
  frag: FragmentInfo | undefined
}

/** Everything a transport knows about one address book entry. */
export interface PeerState {
  readonly id: NodeId
  readonly idField: Buffer
  /** Payload bytes per datagram to this peer, whole and as a fragment. */
  readonly room: number
  readonly fragmentRoom: number
  address: UdpAddress
  /** The peer's confirmed incarnation; 0 until the first handshake or datagram addressed to us. */
  inc: number
  /** Recent incarnations it had before, refused from now on. */
  retired: number[]
  /** Recent (incarnation, packet number) keys from unconfirmed incarnations. */
  unconfirmed: string[]
  /** Outstanding handshake challenge (0 = none), its attempts and retransmission deadline. */
  helloNonce: number
  helloAttempts: number
  helloDeadline: number
  /** Last handshake answer we sent, to rate-limit answers to repeated challenges. */
  lastReplyAt: number
  send: SendLink
  recv: ReceiveLink<Incoming>
  replay: ReplayWindow
  reassembly: Reassembler
  rtt: RttEstimator
  timer: ReturnType<typeof setTimeout> | undefined
  timerAt: number
  /** An acknowledgement is owed; it rides on the next data datagram or goes alone at the end of the tick. */
  ackOwed: boolean
  nextMsgId: number
}

export function createPeerState(
  id: NodeId,
  idField: Buffer,
  address: UdpAddress,
  room: number,
  fragmentRoom: number,
  parts: { receiveWindow: number; reassembly: Reassembler; rtt: RttEstimator },
): PeerState {
  return {
    id,
    idField,
    room,
    fragmentRoom,
    address,
    inc: 0,
    retired: [],
    unconfirmed: [],
    helloNonce: 0,
    helloAttempts: 0,
    helloDeadline: 0,
    lastReplyAt: Number.NEGATIVE_INFINITY,
    send: new SendLink(),
    recv: new ReceiveLink<Incoming>(parts.receiveWindow),
    replay: new ReplayWindow(),
    reassembly: parts.reassembly,
    rtt: parts.rtt,
    timer: undefined,
    timerAt: Number.POSITIVE_INFINITY,
    ackOwed: false,
    nextMsgId: 0,
  }
}

/**
 * Replay check for datagrams from an incarnation not (yet) confirmed, which has no replay window:
 * a short memory of (incarnation, packet number) pairs. Records the pair when it is new.
 */
export function seenRecently(peer: PeerState, inc: number, pn: number): boolean {
  const key = `${inc}:${pn}`
  if (peer.unconfirmed.includes(key)) return true
  peer.unconfirmed.push(key)
  if (peer.unconfirmed.length > UNCONFIRMED_MEMORY) peer.unconfirmed.shift()
  return false
}
