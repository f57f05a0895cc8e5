import { isIP } from 'node:net'
import { AddressError } from './errors.js'

/** Where a peer listens: an IP literal (v4 or v6) and a port. */
export interface UdpAddress {
  host: string
  port: number
}

/** An address book entry: `'127.0.0.1:4000'`, `'[::1]:4000'`, `'localhost:4000'` or `{ host, port }`. */
export type PeerAddress = string | UdpAddress

export type Family = 4 | 6

/** Parses and checks an address book entry. `localhost` maps to the loopback of the socket's family. */
export function parseAddress(entry: PeerAddress, family: Family, what: string): UdpAddress {
  let host: string
  let port: number
  if (typeof entry === 'string') {
    const match = /^\[([^\]]+)\]:(\d+)$/.exec(entry) ?? /^([^:]+):(\d+)$/.exec(entry)
    if (match === null) {
      throw new AddressError(
        `${what}: ${JSON.stringify(entry)} is not host:port (write IPv6 as [::1]:4000)`,
      )
    }
    host = match[1]!
    port = Number(match[2])
  } else if (typeof entry === 'object' && entry !== null) {
    host = entry.host
    port = entry.port
  } else {
    throw new AddressError(`${what}: expected 'host:port' or { host, port }, got ${String(entry)}`)
  }
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new AddressError(`${what}: port must be an integer in 1..65535, got ${port}`)
  }
  return { host: normalizeHost(host, family, what), port }
}

/** Checks a bind host; `undefined` means every interface of the family. */
export function bindFamily(host: string): Family {
  if (host === 'localhost') return 4
  const kind = isIP(host)
  if (kind === 0) {
    throw new AddressError(
      `bind host ${JSON.stringify(host)} is not an IP address: use e.g. 127.0.0.1, 0.0.0.0, ::1 or ::`,
    )
  }
  return kind as Family
}

function normalizeHost(host: string, family: Family, what: string): string {
  if (host === 'localhost') return family === 6 ? '::1' : '127.0.0.1'
  const kind = isIP(host)
  if (kind === 0) {
    throw new AddressError(
      `${what}: host ${JSON.stringify(host)} is not an IP address; resolve names first (dns.promises.lookup) so no datagram waits on DNS`,
    )
  }
  if (kind === family) return host
  // A dual-stack IPv6 socket reaches IPv4 peers through mapped addresses.
  if (family === 6) return `::ffff:${host}`
  throw new AddressError(
    `${what}: ${host} is IPv6 but the socket is bound to IPv4; bind to an IPv6 address (e.g. ::) to reach IPv6 peers`,
  )
}

export function formatAddress(address: UdpAddress): string {
  return address.host.includes(':')
    ? `[${address.host}]:${address.port}`
    : `${address.host}:${address.port}`
}
