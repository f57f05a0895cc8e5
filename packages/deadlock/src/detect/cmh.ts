/**
 * Chandy-Misra-Haas edge chasing for the AND model (seed 001): when a process blocks, its home
 * sends probe (initiator, sender, receiver) to the holder it waits for. A receiver that still
 * holds the resource the sender wants and is itself blocked forwards the probe, with itself as
 * sender, to the holder it waits for; a probe that comes back to its initiator, still blocked on
 * the same request, proves a cycle of waits that all exist at once: a deadlock.
 *
 * Why the receiver checks that it still holds the resource: a blocked process stays blocked, and
 * a holder keeps its lock until its home releases it, so with that check every edge the probe
 * crossed still exists when it returns, and no phantom cycle is reported. Each process forwards
 * a given initiator's probe once, so a detection costs at most one message per wait reachable
 * from the initiator.
 */
import type { SiteEnv } from '../manager/env.js'
import type { HomeSide, Proc } from '../manager/home.js'
import type { ManagerMsg } from '../manager/messages.js'
import { youngest } from '../manager/order.js'

type Probe = Extract<ManagerMsg, { type: 'probe' }>

export class CmhDetector {
  /** `initiator#computation@process`: probes this site already forwarded. */
  private readonly forwarded = new Set<string>()

  constructor(
    private readonly env: SiteEnv,
    private readonly home: HomeSide,
  ) {}

  /** A process of this site just blocked: its probe starts. */
  initiate(proc: Proc): void {
    const waiting = proc.waiting
    if (waiting === undefined) return
    this.env.send(waiting.holder.home, {
      type: 'probe',
      initiator: proc.ref.id,
      computation: proc.req,
      sender: proc.ref.id,
      receiver: waiting.holder.id,
      resource: waiting.resource,
      path: [proc.ref],
    })
  }

  onProbe(probe: Probe): void {
    const proc = this.home.procs.get(String(probe.receiver))
    // The edge sender → receiver is gone if the receiver no longer holds what the sender wants.
    if (proc === undefined || !proc.held.has(probe.resource)) return
    if (proc.state !== 'blocked' || proc.waiting === undefined) return
    if (proc.ref.id === probe.initiator) {
      if (proc.req !== probe.computation) return // the initiator moved on: an old probe
      const victim = youngest(probe.path)
      this.env.emit({ type: 'deadlock', cycle: probe.path.map((p) => p.id), victim: victim.id })
      this.env.send(victim.home, { type: 'abort', process: victim.id })
      return
    }
    const key = `${String(probe.initiator)}#${probe.computation}@${String(proc.ref.id)}`
    if (this.forwarded.has(key)) return
    this.forwarded.add(key)
    this.env.send(proc.waiting.holder.home, {
      ...probe,
      sender: proc.ref.id,
      receiver: proc.waiting.holder.id,
      resource: proc.waiting.resource,
      path: [...probe.path, proc.ref],
    })
  }
}
