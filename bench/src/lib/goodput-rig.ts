/**
 * Runs one-way transfers between a sender worker in the first namespace and a receiver worker in
 * the second, one at a time, and times them. Workers are reused from transfer to transfer, and
 * replaced after a transfer that missed its deadline or a worker that stopped answering.
 */
import {
  type Contender,
  nowMs,
  type RunSpec,
  type RunSummary,
  type WorkerEvent,
} from './goodput-protocol.js'
import { NsWorker } from './goodput-workers.js'
import type { NetnsPair, PacketCounts } from './netns.js'

export interface Transfer {
  contender: Contender
  /** Messages delivered in order per second, from the first send to the last delivery. */
  goodput: number
  /** The same, but from the receiver's first delivery (one clock, one process). */
  receiverGoodput: number
  delivered: number
  /** All messages arrived before the deadline. */
  complete: boolean
  elapsedMs: number
  /** Packets counted and dropped by the loss rule during the transfer, both namespaces. */
  packets: PacketCounts
  sender?: RunSummary
  receiver?: RunSummary
  errors: string[]
}

// A fresh worker first loads tsx and the transport: allow for that on a busy machine.
const readyTimeoutMs = 20_000
const stopTimeoutMs = 5_000
const firstPort = 20_000

export class GoodputRig {
  private sender: NsWorker | undefined
  private receiver: NsWorker | undefined
  private nextRun = 0

  constructor(private readonly pair: NetnsPair) {}

  /** True when the next transfer starts new worker processes (JIT cold). */
  get cold(): boolean {
    return !this.sender?.alive || !this.receiver?.alive
  }

  async transfer(
    contender: Contender,
    count: number,
    size: number,
    deadlineMs: number,
  ): Promise<Transfer> {
    const run = this.nextRun++
    // Fresh ports every run: nothing of an earlier run (late datagrams, TIME_WAIT) can interfere.
    const port = firstPort + 2 * (run % 20_000)
    const spec: RunSpec = { run, contender, count, size, port, selfStopMs: deadlineMs + 30_000 }
    const [nsA, nsB] = this.pair.names
    const [addressA, addressB] = this.pair.addresses
    if (!this.sender?.alive) this.sender = new NsWorker(nsA, 'sender', addressA, addressB)
    if (!this.receiver?.alive) this.receiver = new NsWorker(nsB, 'receiver', addressB, addressA)
    const { sender, receiver } = this
    const ofRun = (type: WorkerEvent['event']) => (e: WorkerEvent) =>
      e.run === run && e.event === type
    const errors: string[] = []
    const before = this.pair.counts()

    receiver.send({ cmd: 'receive', spec })
    const ready = await receiver.waitFor(
      (e) => e.run === run && (e.event === 'ready' || e.event === 'failed'),
      readyTimeoutMs,
    )
    let complete: WorkerEvent | undefined
    if (ready?.event === 'ready') {
      sender.send({ cmd: 'send', spec })
      // Until every message is in, the sender fails, or the deadline.
      const settled = new AbortController()
      complete = await Promise.race([
        receiver.waitFor(ofRun('complete'), deadlineMs, settled.signal),
        sender.waitFor(ofRun('failed'), deadlineMs, settled.signal).then(() => undefined),
      ])
      settled.abort()
    } else {
      errors.push(ready?.event === 'failed' ? ready.error : 'receiver not ready in time')
    }

    // An incomplete transfer is timed up to here: the deadline, or the sender's failure.
    const endedAt = nowMs()
    const started = await sender.waitFor(ofRun('started'), 0)
    receiver.send({ cmd: 'stop', run })
    sender.send({ cmd: 'stop', run })
    const [receiverStopped, senderStopped] = await Promise.all([
      receiver.waitFor(ofRun('stopped'), stopTimeoutMs),
      sender.waitFor(ofRun('stopped'), stopTimeoutMs),
    ])
    for (const worker of [sender, receiver]) {
      for (const e of worker.take((e) => e.run === run))
        if (e.event === 'failed') errors.push(e.error)
    }
    if (!sender.alive) errors.push('sender process exited')
    if (!receiver.alive) errors.push('receiver process exited')
    // A transfer that missed its deadline ends with its processes killed; so does a silent worker.
    if (!complete || !senderStopped) await this.replace('sender')
    if (!complete || !receiverStopped) await this.replace('receiver')
    const after = this.pair.counts()

    const receiverSummary =
      receiverStopped?.event === 'stopped' ? receiverStopped.summary : undefined
    const delivered = receiverSummary?.delivered ?? 0
    const firstSendAt = started?.event === 'started' ? started.firstSendAt : undefined
    const lastDeliveryAt = complete?.event === 'complete' ? complete.lastDeliveryAt : endedAt
    const elapsedMs = firstSendAt === undefined ? 0 : lastDeliveryAt - firstSendAt
    const first = receiverSummary?.firstDeliveryAt
    const last = receiverSummary?.lastDeliveryAt
    const transfer: Transfer = {
      contender,
      goodput: elapsedMs > 0 ? (delivered * 1000) / elapsedMs : 0,
      receiverGoodput:
        first !== undefined && last !== undefined && last > first
          ? ((delivered - 1) * 1000) / (last - first)
          : 0,
      delivered,
      complete: complete !== undefined,
      elapsedMs,
      packets: { seen: after.seen - before.seen, dropped: after.dropped - before.dropped },
      sender: senderStopped?.event === 'stopped' ? senderStopped.summary : undefined,
      receiver: receiverSummary,
      errors,
    }
    return transfer
  }

  /** Ends both workers. */
  async close(): Promise<void> {
    await Promise.all([this.sender?.close(), this.receiver?.close()])
    this.sender = undefined
    this.receiver = undefined
  }

  private async replace(role: 'sender' | 'receiver'): Promise<void> {
    await this[role]?.kill()
    this[role] = undefined
  }
}
