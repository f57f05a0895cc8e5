import { isIP } from 'node:net'
import { AddressError } from './errors.js'

/**
 * The socket's name lookup, for `dgram`: every host it is given is an IP literal (the address book
 * and the bind host are checked as such, a reply goes to the sender's address), so it answers at
 * once. `dgram`'s default, `dns.lookup`, answers an IP literal on the next tick, which cost a
 * deferred call per datagram sent. Anything else is an error, never a DNS query.
 */
export function literalLookup(
  host: string,
  _family: unknown,
  callback: (error: Error | null, address: string, family: number) => void,
): void {
  const family = isIP(host)
  if (family === 0)
    callback(new AddressError(`not an IP address: ${JSON.stringify(host)}`), host, 0)
  else callback(null, host, family)
}
