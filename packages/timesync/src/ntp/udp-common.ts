// Node-only (the @sd/timesync/udp entry): the declaration build of this package leaves Node's
// types out unless a file asks for them.
/// <reference types="node" />
/** What the NTP client and server on UDP share: names resolved, sockets bound, options checked. */
import type { Socket } from 'node:dgram'
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { InvalidArgumentError, NtpNetworkError } from './errors.js'

/** The port `createNtpServer` binds by default: unprivileged, so any user can serve. */
export const DEFAULT_SERVER_PORT = 11_123

/** The address of `host`: an IP literal as is (IPv6 with or without brackets), a name looked up. */
export async function resolveHost(host: string): Promise<string> {
  const literal = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  if (isIP(literal) !== 0) return literal
  try {
    return (await lookup(literal)).address
  } catch (error) {
    throw new NtpNetworkError(host, 'name lookup of', error)
  }
}

/** Binds `socket`; rejects with NtpNetworkError (with a hint for privileged ports). */
export function bind(socket: Socket, port: number, address: string, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const hint =
        error.code === 'EACCES' && port > 0 && port < 1024
          ? ` (ports below 1024 need root; the default ${DEFAULT_SERVER_PORT} does not)`
          : ''
      reject(new NtpNetworkError(host, `bind of port ${port}${hint} for`, error))
    }
    socket.once('error', onError)
    socket.bind(port, address, () => {
      socket.off('error', onError)
      resolve()
    })
  })
}

export function checkPort(port: number, zeroAllowed: boolean): number {
  return checkInteger('port', port, zeroAllowed ? 0 : 1, 65_535)
}

export function checkInteger(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new InvalidArgumentError(`${name} must be an integer in ${min}..${max}, got ${value}`)
  return value
}
