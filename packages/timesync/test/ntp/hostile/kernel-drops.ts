/**
 * Datagrams the kernel dropped before a UDP socket read them (its receive buffer was full), from
 * /proc/net/udp: a loaded machine can drop a few of a fuzz run's bursts, and the run's accounting
 * must tell those from datagrams the server lost.
 */
import { readFileSync } from 'node:fs'

/** Drops of the IPv4 socket bound to 127.0.0.1:`port` (0 when there is no such socket). */
export function kernelDrops(port: number): number {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`
  for (const line of readFileSync('/proc/net/udp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/)
    if (fields[1] === local) return Number(fields[fields.length - 1])
  }
  return 0
}
