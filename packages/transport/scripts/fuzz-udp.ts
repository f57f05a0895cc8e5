/**
 * Fuzzes the UDP adapter's receive path with a million datagrams (or FUZZ_COUNT):
 * random bytes, well-formed datagrams and mutations of them, into a keyed reliable transport,
 * an open reliable one and an open unreliable one. Fails on any internal error, any forged or
 * replayed datagram accepted with a key, or memory beyond the documented bounds.
 *
 *   pnpm --filter @sd/transport fuzz          (FUZZ_SEED=... FUZZ_COUNT=... to replay or resize)
 */
import { createRandom } from '../src/random.js'
import { createUdpTransport, type UdpTransport } from '../src/udp/index.js'
import {
  type CorpusTarget,
  inject,
  mutate,
  randomBytes,
  validDatagram,
} from '../test/udp/support/fuzz-corpus.js'

const count = Number(process.env.FUZZ_COUNT ?? 1_000_000)
const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 0x7fffffff)
const key = 'fuzzing-shared-key-0123456789abcdef'
const retransmit = { maxAttempts: 2, initialRtoMs: 5, minRtoMs: 5 }
const peers = { p: '127.0.0.1:9' }

const keyed = await createUdpTransport({ id: 'me', key, peers, retransmit })
const openReliable = await createUdpTransport({ id: 'me', peers, retransmit })
const openUnreliable = await createUdpTransport({ id: 'me', reliable: false, peers, retransmit })
const target = (t: UdpTransport, withKey: boolean): CorpusTarget => ({
  id: 'me',
  incarnation: t.linkInfo('p')!.incarnation,
  peer: 'p',
  peerIncarnation: 0x1234,
  key: withKey ? key : undefined,
  pn: counter(),
})
function counter(): () => number {
  let n = 0
  return () => n++
}
const subjects = [
  { t: keyed, target: target(keyed, true) },
  { t: openReliable, target: target(openReliable, false) },
  { t: openUnreliable, target: target(openUnreliable, false) },
]

console.log(`fuzzing ${count.toLocaleString('en-US')} datagrams, seed ${seed}`)
const r = createRandom(seed).next
const failures: string[] = []
const start = performance.now()
let forged = 0
let replays = 0
for (let i = 0; i < count; i++) {
  const { t, target: tt } = subjects[i % 3]!
  const kind = r()
  if (kind < 0.2) {
    inject(t, randomBytes(r, Math.floor(r() * 1600)))
  } else if (kind < 0.7) {
    const bytes = mutate(r, validDatagram(r, tt))
    if (t === keyed) {
      forged++
      const before = keyed.stats
      inject(t, bytes)
      const after = keyed.stats
      if (
        after.droppedTotal !== before.droppedTotal + 1 ||
        after.messagesDelivered !== before.messagesDelivered
      ) {
        failures.push(`forged datagram accepted at iteration ${i}: ${bytes.toString('hex')}`)
      }
    } else inject(t, bytes)
  } else {
    const bytes = validDatagram(r, tt)
    inject(t, bytes)
    if (t === keyed && r() < 0.5) {
      replays++
      const before = keyed.stats
      inject(t, Buffer.from(bytes))
      const after = keyed.stats
      if (
        after.droppedTotal !== before.droppedTotal + 1 ||
        after.messagesDelivered !== before.messagesDelivered
      ) {
        failures.push(`replayed datagram accepted at iteration ${i}: ${bytes.toString('hex')}`)
      }
    }
  }
  if (failures.length > 10) break
  if ((i + 1) % 100_000 === 0) {
    const heap = Math.round(process.memoryUsage().heapUsed / 2 ** 20)
    console.log(
      `  ${(i + 1).toLocaleString('en-US')} datagrams, ${Math.round(performance.now() - start)} ms, heap ${heap} MiB`,
    )
    // Let timers (handshake retries) run, as they would between datagrams in real life.
    await new Promise((resolve) => setImmediate(resolve))
  }
}
const seconds = (performance.now() - start) / 1000
for (const { t } of subjects) {
  const s = t.stats
  if (s.internalErrors > 0) failures.push(`${s.internalErrors} internal errors`)
  const dropped = Object.entries(s.dropped).filter(([, n]) => n > 0)
  console.log(
    `${t === keyed ? 'keyed reliable ' : t === openReliable ? 'open reliable  ' : 'open unreliable'}: received ${s.datagramsReceived}, delivered ${s.messagesDelivered}, dropped ${JSON.stringify(Object.fromEntries(dropped))}`,
  )
}
console.log(
  `${forged} forged and ${replays} replayed datagrams against the keyed transport; ${Math.round(count / seconds).toLocaleString('en-US')} datagrams/s`,
)
await Promise.all(subjects.map(({ t }) => t.close({ graceful: false })))
if (failures.length > 0) {
  console.error(`FAILED (replay with FUZZ_SEED=${seed}):\n${failures.join('\n')}`)
  process.exit(1)
}
console.log('OK: no crash, no internal error, every forged and replayed datagram rejected')
