/**
 * A process that fuzzes an NTP server on 127.0.0.1: `count` datagrams of `hostileDatagram` from
 * `sockets` sockets, in bursts of `burst` sent back to back, each followed by a wait until the
 * server has answered the burst (so a server descheduled on a busy machine is not buried under
 * bursts its receive buffer cannot hold: that buffer is not what is being tested).
 * Config (argv[2], JSON): { port, seed, count, burst, sockets }. Prints `DONE <json>` with what
 * it sent (all, answerable, bytes, per mode) and what came back (replies, bytes).
 */
import { createSocket, type Socket } from 'node:dgram'
import { createRandom, isFiniteNumber, isNonNegInt, shape } from '@sd/transport'
import { checkedJson } from './checked-json.js'
import { answerable, hostileDatagram } from './hostile-datagrams.js'

const isConfig = shape({
  port: isNonNegInt,
  seed: isFiniteNumber,
  count: isNonNegInt,
  burst: isNonNegInt,
  sockets: isNonNegInt,
})

const {
  port,
  seed,
  count,
  burst,
  sockets: socketCount,
} = checkedJson(process.argv[2] ?? '', isConfig, 'the sender config')
const random = createRandom(`ntp-server-fuzz:${seed}`)
const report = {
  sent: 0,
  answerable: 0,
  bytesSent: 0,
  perMode: [0, 0, 0, 0, 0, 0, 0, 0],
  replies: 0,
  bytesReplied: 0,
  sendErrors: 0,
}
/** Replies the kernel dropped (or the server lost): given up on after a burst's wait. */
let givenUp = 0
/** Called on each reply while a burst waits for its answers. */
let onReply: (() => void) | undefined
const sockets: Socket[] = []
for (let i = 0; i < socketCount; i++) {
  const socket = createSocket('udp4')
  socket.on('message', (reply) => {
    report.replies++
    report.bytesReplied += reply.length
    onReply?.()
  })
  socket.on('error', () => report.sendErrors++)
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
  sockets.push(socket)
}

/** Long enough for a descheduled server on a busy machine; only a lost reply waits it out. */
const BURST_WAIT_MS = 1000

/**
 * Resolves once every answerable datagram sent so far has its reply (less those given up on
 * before), or after `ms`: the replies still missing then are given up on, so one drop does not
 * make every later burst wait.
 */
function burstAnswered(ms: number): Promise<void> {
  const owed = () => report.answerable - givenUp - report.replies
  if (owed() <= 0) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      onReply = undefined
      givenUp += Math.max(0, owed())
      resolve()
    }
    const timer = setTimeout(done, ms)
    onReply = () => {
      if (owed() <= 0) done()
    }
  })
}

for (let i = 0; i < count; ) {
  const sends: Promise<void>[] = []
  for (const end = Math.min(count, i + burst); i < end; i++) {
    const bytes = hostileDatagram(random, i)
    report.sent++
    report.bytesSent += bytes.length
    if (bytes.length > 0) report.perMode[bytes[0]! & 7]!++
    if (answerable(bytes)) report.answerable++
    const socket = sockets[random.int(0, sockets.length - 1)]!
    sends.push(
      new Promise((resolve) =>
        socket.send(bytes, port, '127.0.0.1', (error) => {
          if (error) report.sendErrors++
          resolve()
        }),
      ),
    )
  }
  await Promise.all(sends)
  await burstAnswered(BURST_WAIT_MS)
  // A burst with nothing answerable has nothing to wait for: a breath then.
  await new Promise((resolve) => setTimeout(resolve, 2))
}
// Replies still on their way: until every answerable datagram has one, at most 5 s.
for (let wait = 0; wait < 250 && report.replies < report.answerable; wait++)
  await new Promise((resolve) => setTimeout(resolve, 20))
console.log(`DONE ${JSON.stringify(report)}`)
for (const socket of sockets) socket.close()
