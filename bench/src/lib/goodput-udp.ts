/** The reliable UDP link's side of the goodput benchmark, with default transport options. */
import { setTimeout as sleep } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'
import { InOrderTally, makeMessage, nowMs, type RunSpec } from './goodput-protocol.js'
import type { RunSide, SideContext } from './goodput-side.js'

type UdpModule = typeof import('@sd/transport/udp')

/**
 * The build under test: the package's (dist/, what `pnpm bench` builds) unless
 * SD_GOODPUT_UDP_MODULE names another build of `@sd/transport/udp`, e.g. an older commit's, so that
 * before and after can be measured on the same machine.
 */
export const udpModuleUrl = process.env.SD_GOODPUT_UDP_MODULE
  ? pathToFileURL(process.env.SD_GOODPUT_UDP_MODULE).href
  : import.meta.resolve('@sd/transport/udp')
const { BackpressureError, createUdpTransport } = (await import(udpModuleUrl)) as UdpModule

const senderId = 's'
const receiverId = 'r'
// Backpressure: how long the sender waits before offering the refused message again.
const backpressurePauseMs = 1

export async function receiveUdp(spec: RunSpec, ctx: SideContext): Promise<RunSide> {
  const transport = await createUdpTransport({
    id: receiverId,
    bind: { host: ctx.self, port: spec.port },
    peers: { [senderId]: { host: ctx.peer, port: spec.port + 1 } },
  })
  const signals: string[] = []
  transport.onSignal((s) => signals.push(s.type))
  const tally = new InOrderTally(spec.count, (at) =>
    ctx.emit({ event: 'complete', run: spec.run, lastDeliveryAt: at }),
  )
  transport.onMessage((_from, message) => tally.deliver(message))
  return {
    async stop() {
      const stats = { ...transport.stats }
      await transport.close()
      return { ...tally.summary(), signals, stats, module: udpModuleUrl }
    },
  }
}

export async function sendUdp(spec: RunSpec, ctx: SideContext): Promise<RunSide> {
  const transport = await createUdpTransport({
    id: senderId,
    bind: { host: ctx.self, port: spec.port + 1 },
    peers: { [receiverId]: { host: ctx.peer, port: spec.port } },
  })
  const signals: string[] = []
  transport.onSignal((s) => signals.push(s.type))
  let stopped = false
  let accepted = 0
  let backpressureWaits = 0
  let error: string | undefined
  const sendAll = async () => {
    ctx.emit({ event: 'started', run: spec.run, firstSendAt: nowMs() })
    // Bounded: `count` messages, and every wait ends once `stop` is called.
    while (accepted < spec.count && !stopped) {
      try {
        transport.send(receiverId, makeMessage(accepted, spec.size))
        accepted++
      } catch (e) {
        if (!(e instanceof BackpressureError)) throw e
        backpressureWaits++
        await sleep(backpressurePauseMs)
      }
    }
  }
  const sending = sendAll().catch((e: unknown) => {
    error = String(e)
    ctx.emit({ event: 'failed', run: spec.run, error })
  })
  return {
    async stop() {
      stopped = true
      await sending
      const stats = { ...transport.stats }
      await transport.close()
      return { accepted, backpressureWaits, signals, stats, error, module: udpModuleUrl }
    },
  }
}
