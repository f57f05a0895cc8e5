import type { NodeId } from '@sd/transport'
import { fencingToken } from './timestamp.js'

/**
 * The `requested` event both timestamp algorithms emit for a request of their own (`mode` only
 * for a shared request of Ricart-Agrawala's).
 */
export type RequestedEvent = {
  type: 'requested'
  resource: string
  time: number
  token: number
  mode?: 'shared'
}

type RequestMessage = {
  type: 'request'
  resource: string
  time: number
  mode?: 'shared'
  view?: number
}

/**
 * Makes a request of this node known: to the application (`requested`, with the token the entry
 * will carry) and to every peer (one REQUEST stamped `time`, the same for every copy). `extra`
 * (`{ mode: 'shared' }` or nothing) goes on both; absent, both are as they always were. `sent`:
 * the view number the REQUEST carries and the members it goes to (absent: a broadcast to the
 * launch group, as in view 0).
 */
export function announceRequest(
  resource: string,
  time: number,
  rank: number,
  ctx: {
    emit(event: RequestedEvent): void
    broadcast(msg: RequestMessage): void
    send(to: NodeId, msg: RequestMessage): void
  },
  extra: { mode?: 'shared' } = {},
  sent: { view?: number; to?: readonly NodeId[] } = {},
): void {
  ctx.emit({ type: 'requested', resource, time, token: fencingToken(time, rank), ...extra })
  const msg: RequestMessage = {
    type: 'request',
    resource,
    time,
    ...extra,
    ...(sent.view === undefined ? {} : { view: sent.view }),
  }
  if (sent.to === undefined) ctx.broadcast(msg)
  else for (const peer of sent.to) ctx.send(peer, msg)
}
