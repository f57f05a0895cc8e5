import { createSocket } from 'node:dgram'
import { bindFamily, formatAddress } from './address.js'
import { AddressError } from './errors.js'
import { literalLookup } from './literal-lookup.js'
import { resolveOptions, type UdpTransportOptions } from './options.js'
import { UdpTransport } from './udp-transport.js'
import { encodeIdField } from './wire/header.js'

/**
 * Binds a UDP socket and resolves with a transport once it listens.
 * `bind.port` 0 (the default) picks a free port: read it from `transport.address.port`.
 */
export async function createUdpTransport<Msg = unknown>(
  options: UdpTransportOptions<Msg>,
): Promise<UdpTransport<Msg>> {
  const resolved = resolveOptions(options as UdpTransportOptions<never>)
  const host = options.bind?.host ?? '127.0.0.1'
  const port = options.bind?.port ?? 0
  const family = bindFamily(host)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new AddressError(`bind port must be an integer in 0..65535, got ${port}`)
  }
  encodeIdField(options.id) // validates the id before a socket exists
  const socket = createSocket({ type: family === 6 ? 'udp6' : 'udp4', lookup: literalLookup })
  await new Promise<void>((resolve, reject) => {
    const fail = (error: Error) => {
      socket.close()
      reject(
        new AddressError(
          `cannot bind UDP ${formatAddress({ host, port })}: ${error.message}; choose another port or 0 for any`,
        ),
      )
    }
    socket.once('error', fail)
    socket.bind({ address: host === 'localhost' ? '127.0.0.1' : host, port }, () => {
      socket.off('error', fail)
      resolve()
    })
  })
  if (resolved.socketBufferBytes > 0) {
    try {
      socket.setRecvBufferSize(resolved.socketBufferBytes)
      socket.setSendBufferSize(resolved.socketBufferBytes)
    } catch {
      // The OS refused the size: the default buffers still work, with more loss under bursts.
    }
  }
  try {
    return new UdpTransport<Msg>(socket, family, options, resolved)
  } catch (error) {
    socket.close()
    throw error
  }
}
