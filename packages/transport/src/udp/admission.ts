import type { NodeId } from '../ids.js'
import { formatAddress, type UdpAddress } from './address.js'
import type { EngineSink } from './engine.js'

/**
 * The socket driver's side of admission: the user's `admit(id, address)` asked about the source of
 * a datagram (node:dgram's RemoteInfo) and, if it says yes, that address for the address book.
 * The engine keeps the bound and the signal. A predicate that throws admits nobody: its error goes
 * to `failed` (re-thrown asynchronously, like any handler's), never into the receive path.
 */
export function admitFromSource(
  admit: (id: NodeId, address: string) => boolean,
  failed: (error: unknown) => void,
): NonNullable<EngineSink['admit']> {
  return (id, source) => {
    const rinfo = source as { address: string; port: number } | undefined
    if (rinfo === undefined) return undefined
    const address: UdpAddress = { host: rinfo.address, port: rinfo.port }
    try {
      return admit(id, formatAddress(address)) === true ? address : undefined
    } catch (error) {
      failed(error)
      return undefined
    }
  }
}
