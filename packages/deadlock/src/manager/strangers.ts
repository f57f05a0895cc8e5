/**
 * The check after parsing: a well-formed message may still name a resource no site owns, or a
 * home that is not a site, which would make a site throw (or send into the void).
 */
import type { NodeId } from '@sd/transport'
import type { ManagerMessage, ProcRef } from './messages.js'

/**
 * Why a well-formed message cannot be acted upon here, if so: it names a resource that no site
 * owns, a process at a home that is not a site, or a hop beyond the end of its path.
 */
export function strangerIn(
  msg: ManagerMessage,
  owns: (resource: string) => boolean,
  sites: readonly NodeId[],
): string | undefined {
  const refs: ProcRef[] = []
  const resources: string[] = []
  if ('resource' in msg) resources.push(msg.resource)
  if (msg.type === 'lock-request') refs.push(msg.proc)
  if (msg.type === 'lock-blocked') refs.push(msg.holder)
  if (msg.type === 'probe' || msg.type === 'verify') {
    for (const e of msg.path) {
      refs.push(e.ref)
      resources.push(e.resource)
    }
  }
  if (msg.type === 'verify' && msg.index >= msg.path.length) return 'verify: index past the path'
  if (msg.type === 'local-waits')
    for (const w of msg.waits) {
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
