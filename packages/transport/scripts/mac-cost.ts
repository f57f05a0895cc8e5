/**
 * What one datagram's MAC costs, alone (no socket, no link): sign + verify of a datagram the size
 * of the ping-pong benchmark's (78 signed bytes + the 32-byte trailer), by keyed BLAKE2s (the
 * default `mac`) and by HMAC-SHA256 on the JS engine and on node:crypto, interleaved over rounds; prints the min and median CPU microseconds of each (CPU
 * time of this process, not the wall clock, which on a shared machine also counts other processes).
 * The in-place figure, inside a running link, is `authCpuUsPerDatagram` of `pnpm bench udp.bench`.
 *
 *   pnpm --filter @sd/transport exec tsx scripts/mac-cost.ts [signedBytes]
 */
import { randomBytes } from 'node:crypto'
import { Authenticator } from '../src/udp/auth.js'

const signed = Number(process.argv[2] ?? 78)
const datagram = randomBytes(signed + 32)
const key = randomBytes(32)
const engines = ['blake2s', 'hmac-sha256 js', 'hmac-sha256 node-crypto'] as const
const auths = [
  new Authenticator(key),
  new Authenticator(key, 'js'),
  new Authenticator(key, 'node-crypto'),
]
const perRound = 100_000
const rounds = 9
const samples = engines.map(() => [] as number[])
for (let round = -1; round < rounds; round++) {
  auths.forEach((auth, i) => {
    const start = process.cpuUsage()
    for (let n = 0; n < perRound; n++) {
      auth.sign(datagram)
      if (!auth.verify(datagram, signed)) throw new Error('a MAC did not verify')
    }
    const used = process.cpuUsage(start)
    const us = (used.user + used.system) / perRound
    if (round >= 0) samples[i]!.push(us) // round -1 warms up
  })
}
engines.forEach((engine, i) => {
  const sorted = samples[i]!.sort((x, y) => x - y)
  const min = sorted[0]!.toFixed(2)
  const median = sorted[rounds >> 1]!.toFixed(2)
  console.log(
    `${engine}: sign + verify of ${signed} + 32 bytes: min ${min} us, median ${median} us`,
  )
})
