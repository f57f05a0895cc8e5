/**
 * The shapes of the resource manager's messages, checked on arrival: a peer may send anything,
 * and a message naming a resource no site owns, or a home that is not a site, would make a site
 * throw (or send into the void). What does not fit is dropped and reported as `ignored`.
 */
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
import type { ManagerMsg, PathEntry, ProcRef, SiteWait } from './messages.js'

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

export const parseManagerMessage = messageParser<ManagerMsg>({
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

/**
 * Why a well-formed message cannot be acted upon here, if so: it names a resource that no site
 * owns, a process at a home that is not a site, or a hop beyond the end of its path.
 */
export function strangerIn(
  msg: ManagerMsg,
  owns: (resource: string) => boolean,
  sites: readonly NodeId[],
): string | undefined {
  const refs: ProcRef[] = []
  const resources: string[] = []
  if ('resource' in msg) resources.push(msg.resource)
  if (msg.type === 'lock-request') refs.push(msg.proc)
  if (msg.type === 'lock-blocked') refs.push(msg.holder)
  if (msg.type === 'probe' || msg.type === 'verify') {
    for (const e of msg.path as PathEntry[]) {
      refs.push(e.ref)
      resources.push(e.resource)
    }
  }
  if (msg.type === 'verify' && msg.index >= msg.path.length) return 'verify: index past the path'
  if (msg.type === 'local-waits')
    for (const w of msg.waits as SiteWait[]) {
      refs.push(w.from, w.to)
      resources.push(w.resource)
    }
  const resource = resources.find((r) => !owns(r))
  if (resource !== undefined)
    return `${msg.type}: no site owns resource ${JSON.stringify(resource.slice(0, 40))}`
  const ref = refs.find((r) => !sites.includes(r.home))
  if (ref !== undefined) return `${msg.type}: home ${JSON.stringify(ref.home)} is not a site`
  return undefined
}
