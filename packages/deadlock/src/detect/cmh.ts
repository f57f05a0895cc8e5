/**
 * Chandy-Misra-Haas edge chasing for the AND model (seed 001): when a process blocks, its home
 * sends probe (initiator, sender, receiver) to the holder it waits for. A receiver that still
 * holds the resource the sender wants and is itself blocked forwards the probe, with itself as
 * sender, to the holder it waits for; a probe that comes back to its initiator, still blocked in
 * the same wait, has found a cycle. Each process forwards a given wait's probe once, so a
 * detection costs at most one probe per wait reachable from the initiator.
 *
 * Without aborts, that cycle is a deadlock as it stands: blocked processes stay blocked and hold
 * what they hold. With resolution running, another detection's victim may leave the cycle while
 * a probe is on its way, and the cycle found may no longer (or never at once) exist. So the
 * initiator checks the cycle once more before anyone is aborted: a `verify` message goes round
 * it, and each process confirms the same pending request and the same hold as when the probe
 * passed. Those instances existed when the probe passed and still exist, so all existed at once
 * when the probe returned: a real deadlock, which lasts. This costs one more message per process
 * of the cycle. The victim is the youngest process of the cycle (see `youngest`).
 */
import type { SiteEnv } from '../manager/env.js'
import type { HomeSide, Proc } from '../manager/home.js'
import type { ManagerMessage, PathEntry } from '../manager/messages.js'
import { youngest } from '../manager/order.js'
import type { ManagerCtx } from '../manager/protocol.js'
import { snapshotFields } from '../snapshot.js'

type Probe = Extract<ManagerMessage, { type: 'probe' }>
type Verify = Extract<ManagerMessage, { type: 'verify' }>

export class CmhDetector {
  /** `initiator#computation@process`: probes this site already forwarded. */
  private readonly forwarded = new Set<string>()

  /** The probes forwarded, sorted: the detector's only state. */
  snapshot() {
    return { forwarded: [...this.forwarded].sort() }
  }

  /** Takes on the state `snapshot()` gave (for the protocol's `restore()`). */
  restore(snapshot: unknown): void {
    const s = snapshotFields(snapshot, 'resourceManager()', ['forwarded'])
    this.forwarded.clear()
    for (const key of s.forwarded as string[]) this.forwarded.add(key)
  }

  constructor(
    private readonly env: SiteEnv,
    private readonly home: HomeSide,
  ) {}

  /** A process of this site just blocked (or its holder changed): its probe starts. */
  initiate(proc: Proc, ctx: ManagerCtx): void {
    const waiting = proc.waiting
    if (waiting === undefined) return
    this.env.send(
      waiting.holder.home,
      {
        type: 'probe',
        initiator: proc.ref.id,
        computation: waiting.no,
        sender: proc.ref.id,
        receiver: waiting.holder.id,
        resource: waiting.resource,
        path: [{ ref: proc.ref, req: proc.req, resource: waiting.resource, heldReq: -1 }],
      },
      ctx,
    )
  }

  onProbe(probe: Probe, ctx: ManagerCtx): void {
    const proc = this.home.procs.get(String(probe.receiver))
    // The edge sender → receiver is gone if the receiver no longer holds what the sender wants.
    const heldReq = proc?.held.get(probe.resource)
    if (proc === undefined || heldReq === undefined) return
    if (proc.state !== 'blocked' || proc.waiting === undefined) return
    if (proc.ref.id === probe.initiator) {
      if (proc.waiting.no !== probe.computation) return // the initiator's wait changed
      const path = [{ ...probe.path[0]!, heldReq }, ...probe.path.slice(1)]
      this.verifyAt(path, 1, ctx)
      return
    }
    const key = `${String(probe.initiator)}#${probe.computation}@${String(proc.ref.id)}`
    if (this.forwarded.has(key)) return
    this.forwarded.add(key)
    this.env.send(
      proc.waiting.holder.home,
      {
        ...probe,
        sender: proc.ref.id,
        receiver: proc.waiting.holder.id,
        resource: proc.waiting.resource,
        path: [
          ...probe.path,
          { ref: proc.ref, req: proc.req, resource: proc.waiting.resource, heldReq },
        ],
      },
      ctx,
    )
  }

  onVerify(msg: Verify, ctx: ManagerCtx): void {
    const { path, index } = msg
    const entry = path[index]!
    const before = path[(index + path.length - 1) % path.length]!
    const proc = this.home.procs.get(String(entry.ref.id))
    const same =
      proc !== undefined &&
      proc.state === 'blocked' &&
      proc.req === entry.req &&
      proc.held.get(before.resource) === entry.heldReq
    if (!same) return // an edge of the cycle is gone: no deadlock to resolve
    if (index === 0) {
      const victim = youngest(path.map((e) => e.ref))
      ctx.emit({ type: 'deadlock', cycle: path.map((e) => e.ref.id), victim: victim.id })
      this.env.send(victim.home, { type: 'abort', process: victim.id }, ctx)
      return
    }
    this.verifyAt(path, (index + 1) % path.length, ctx)
  }

  private verifyAt(path: PathEntry[], index: number, ctx: ManagerCtx): void {
    this.env.send(
      path[index % path.length]!.ref.home,
      {
        type: 'verify',
        path,
        index: index % path.length,
      },
      ctx,
    )
  }
}
