/**
 * A child process for the multi-process test: `node --import tsx peer-process.ts <id> [key]`.
 * Binds a UDP transport on loopback, prints `READY <port>`, then obeys JSON lines on stdin:
 *   { "peers": { id: "host:port" } }        set address book entries
 *   { "send": { "to": id, "count": n } }    send n numbered messages to a peer
 *   { "expect": { "from": [ids], "count": n } }  report to "parent" once n messages came from each
 * Everything it sees (signals, order violations) is reported to the peer "parent" over UDP.
 * It exits when stdin closes (the parent is done or gone).
 */
import { onParentLines } from '../../../../../test-support/worker-process.js'
import { createUdpTransport } from '../../../src/udp/index.js'

type Wire = { type: 'data'; i: number } | { type: 'report'; [k: string]: unknown }

const [id, key] = process.argv.slice(2)
if (id === undefined) throw new Error('usage: peer-process.ts <id> [key]')
const t = await createUdpTransport<Wire>({ id, key })
const next = new Map<string, number>()
const received = new Map<string, number>()
let expectation: { from: string[]; count: number } | undefined
let outOfOrder = 0
const sent = new Map<string, number>()

const report = (body: Record<string, unknown>) => {
  if (t.peers.includes('parent')) t.send('parent', { type: 'report', from: id, ...body })
}
const checkDone = () => {
  if (expectation?.from.every((p) => (received.get(p) ?? 0) >= expectation!.count)) {
    report({ event: 'received', counts: Object.fromEntries(received), outOfOrder })
    expectation = undefined
  }
}
t.onMessage((from, msg) => {
  if (msg.type !== 'data') return
  const key = String(from)
  // Numbers from one sender must come in order with no gap and no repeat.
  if (msg.i !== (next.get(key) ?? msg.i)) outOfOrder++
  next.set(key, msg.i + 1)
  received.set(key, (received.get(key) ?? 0) + 1)
  checkDone()
})
t.onSignal((signal) => report({ event: 'signal', signal }))

const onCommand = (line: string) => {
  const cmd = JSON.parse(line) as {
    peers?: Record<string, string>
    send?: { to: string; count: number }
    expect?: { from: string[]; count: number }
  }
  for (const [peer, address] of Object.entries(cmd.peers ?? {})) t.setPeer(peer, address)
  if (cmd.expect) {
    expectation = cmd.expect
    received.clear()
    checkDone()
  }
  if (cmd.send) {
    const start = sent.get(cmd.send.to) ?? 0
    for (let i = start; i < start + cmd.send.count; i++) t.send(cmd.send.to, { type: 'data', i })
    sent.set(cmd.send.to, start + cmd.send.count)
  }
}
onParentLines({ line: onCommand, close: () => process.exit(0) })
process.stdout.write(`READY ${t.address.port}\n`)
