import { InvalidClockArgumentError } from '../errors.js'
import type { NodeId } from '../ids.js'
import type { LamportTimestamp } from '../lamport.js'
import { isCount, isMemberId, isPlainRecord } from '../message-checks.js'
import { parseMessage, type TotalOrderMessage } from './messages.js'

/** What `totalOrderBroadcast`'s `snapshot()` gives and `restore()` takes (null: not started). */
export interface TotalOrderSnapshot<P> {
  time: number
  peers: NodeId[]
  queue: Array<{ timestamp: LamportTimestamp; payload: P }>
  latest: Array<{ peer: NodeId; timestamp: LamportTimestamp }>
  nextOut: Array<{ peer: NodeId; link: number }>
  nextIn: Array<{ peer: NodeId; link: number }>
  early: Array<{ peer: NodeId; messages: TotalOrderMessage<P>[] }>
  delivered: number
}

const isStamp = (v: unknown): v is LamportTimestamp =>
  isPlainRecord(v) && isCount(v.time) && isMemberId(v.pid)

const listOf = (v: unknown, item: (x: Record<string, unknown>) => boolean): boolean =>
  Array.isArray(v) && v.every((x) => isPlainRecord(x) && item(x))

/**
 * A total-order snapshot checked before it is taken on: a value of another shape (another
 * protocol's state, a corrupted file) is refused with a typed error, never read as a fresh node.
 */
export function parseSnapshot<P>(snapshot: unknown): TotalOrderSnapshot<P> {
  const s = snapshot
  const fail = (what: string): never => {
    throw new InvalidClockArgumentError(`total order broadcast: restore(): ${what}`)
  }
  if (!isPlainRecord(s)) return fail('expected the object snapshot() gave, or null')
  if (!isCount(s.time)) fail('time must be a Lamport time')
  if (!Array.isArray(s.peers) || !s.peers.every(isMemberId)) fail('peers must be member ids')
  if (!listOf(s.queue, (q) => isStamp(q.timestamp) && Object.hasOwn(q, 'payload')))
    fail('queue must be [{ timestamp, payload }]')
  if (!listOf(s.latest, (l) => isMemberId(l.peer) && isStamp(l.timestamp)))
    fail('latest must be [{ peer, timestamp }]')
  for (const key of ['nextOut', 'nextIn'] as const)
    if (!listOf(s[key], (l) => isMemberId(l.peer) && isCount(l.link)))
      fail(`${key} must be [{ peer, link }]`)
  const messages = (m: unknown) =>
    Array.isArray(m) && m.every((x) => typeof parseMessage(x) !== 'string')
  if (!listOf(s.early, (e) => isMemberId(e.peer) && messages(e.messages)))
    fail('early must be [{ peer, messages }] of total-order messages')
  if (!isCount(s.delivered)) fail('delivered must be a count')
  return s as unknown as TotalOrderSnapshot<P>
}
