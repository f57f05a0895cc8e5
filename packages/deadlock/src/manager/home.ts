/**
 * The home side of a site: the processes it runs. Each acquires its resources one at a time, in
 * order, holds them for its work, then releases them all. It learns from the resources' sites
 * whether a request is granted, blocked (and by whom) or must die, and it aborts a process when
 * told to (a deadlock victim, a wound, a death), releasing everything it holds.
 */
import type { DeadlockRequest, ProcessSpec, ProcessStep } from '../contract.js'
import { snapshotList } from '../snapshot.js'
import type { SiteEnv } from './env.js'
import type { ManagerMessage, ProcRef } from './messages.js'
import type { ManagerCtx } from './protocol.js'

/** The script a spec stands for. */
export function stepsOf(spec: ProcessSpec): ProcessStep[] {
  if (spec.steps !== undefined) return [...spec.steps]
  return [...(spec.resources ?? []).map((r) => ({ acquire: r })), { work: spec.workMs ?? 10 }]
}

export interface Proc {
  spec: ProcessSpec
  steps: ProcessStep[]
  ref: ProcRef
  state: 'waiting-to-start' | 'acquiring' | 'blocked' | 'working' | 'finished' | 'aborted'
  /** Index of the next step. */
  next: number
  held: Map<string, number>
  /** The request in flight (its number grows with every request of this process). */
  req: number
  pending: string | undefined
  /**
   * What it waits for, when blocked: the site's notice number (ordering notices of one request)
   * and `no`, this home's number for the wait (a new holder is a new wait).
   */
  waiting: { resource: string; holder: ProcRef; seq: number; no: number } | undefined
  waits: number
}

export interface HomeOptions {
  /** Restart an aborted process (with its old timestamp) after this long; undefined: never. */
  restartAfterMs: number | undefined
  /** Told when a process of this site becomes blocked (Chandy-Misra-Haas starts its probe). */
  onBlocked?: (proc: Proc, ctx: ManagerCtx) => void
}

export class HomeSide {
  /** By `String(id)`, so that timer keys find them too. */
  readonly procs = new Map<string, Proc>()

  constructor(
    private readonly env: SiteEnv,
    private readonly options: HomeOptions,
  ) {}

  /**
   * The processes as canonical plain data, by id (their spec is read once, into `steps`, when
   * they are added; held locks by resource).
   */
  snapshot() {
    return [...this.procs.keys()].sort().map((key) => {
      const p = this.procs.get(key)!
      return {
        key,
        steps: p.steps.map((step) => ({ ...step })),
        ref: { ...p.ref },
        state: p.state,
        next: p.next,
        held: [...p.held.keys()]
          .sort()
          .map((resource) => ({ resource, req: p.held.get(resource)! })),
        req: p.req,
        pending: p.pending ?? null,
        waiting: p.waiting === undefined ? null : { ...p.waiting, holder: { ...p.waiting.holder } },
        waits: p.waits,
      }
    })
  }

  /** Takes on the processes `snapshot()` gave (for the protocol's `restore()`). */
  restore(snapshot: unknown): void {
    this.procs.clear()
    for (const saved of snapshotList<SavedProc>(snapshot, 'resourceManager()', 'the processes')) {
      const { key, state, next, req, waits } = saved
      const steps = saved.steps.map((step) => ({ ...step }))
      const ref = { ...saved.ref }
      const held = new Map(
        heldInOrder(steps, next, saved.held).map(({ resource, req }) => [resource, req]),
      )
      const w = saved.waiting
      const waiting = w === null ? undefined : { ...w, holder: { ...w.holder } }
      const spec = { id: ref.id, home: ref.home, steps }
      const pending = saved.pending ?? undefined
      this.procs.set(key, { spec, steps, ref, state, next, held, req, pending, waiting, waits })
    }
  }

  /** Registers a process of this site; it starts after `startAt` (or now). */
  add(spec: ProcessSpec, ctx: ManagerCtx): void {
    if (this.procs.has(String(spec.id))) return
    const proc: Proc = {
      spec,
      steps: stepsOf(spec),
      ref: { id: spec.id, home: this.env.self, timestamp: 0 },
      state: 'waiting-to-start',
      next: 0,
      held: new Map(),
      req: 0,
      pending: undefined,
      waiting: undefined,
      waits: 0,
    }
    this.procs.set(String(spec.id), proc)
    const at = spec.startAt ?? 0
    if (at > 0) ctx.setTimer(`start:${String(spec.id)}`, at)
    else this.begin(proc, true, ctx)
  }

  onRequest(req: DeadlockRequest, ctx: ManagerCtx): void {
    if (req.type === 'run') this.add({ ...req.process, home: this.env.self }, ctx)
  }

  onTimer(key: string, ctx: ManagerCtx): boolean {
    const [kind, id] = splitKey(key)
    const proc = this.procs.get(id)
    if (proc === undefined) return false
    if (kind === 'start') this.begin(proc, true, ctx)
    else if (kind === 'restart') this.begin(proc, false, ctx)
    else if (kind === 'work') {
      if (proc.state !== 'working') return true
      proc.next++
      this.acquireNext(proc, ctx)
    } else return false
    return true
  }

  onMessage(msg: ManagerMessage, ctx: ManagerCtx): void {
    switch (msg.type) {
      case 'lock-grant': {
        const proc = this.procs.get(String(msg.process))
        if (proc === undefined || proc.req !== msg.req || proc.pending !== msg.resource) {
          // A grant for a request given up (the process was aborted): give the lock back.
          this.env.send(
            this.env.siteOf(msg.resource),
            {
              type: 'lock-release',
              process: msg.process,
              resource: msg.resource,
              req: msg.req,
            },
            ctx,
          )
          return
        }
        proc.pending = undefined
        proc.waiting = undefined
        proc.held.set(msg.resource, msg.req)
        ctx.emit({ type: 'granted', process: proc.ref.id, resource: msg.resource })
        proc.next++
        this.acquireNext(proc, ctx)
        return
      }
      case 'lock-blocked': {
        const proc = this.procs.get(String(msg.process))
        if (proc === undefined || proc.req !== msg.req || proc.pending !== msg.resource) return
        // Links reorder: a notice older than the one applied names a holder that is gone.
        if (proc.waiting !== undefined && proc.waiting.seq > msg.seq) return
        proc.state = 'blocked'
        proc.waiting = {
          resource: msg.resource,
          holder: msg.holder,
          seq: msg.seq,
          no: ++proc.waits,
        }
        this.options.onBlocked?.(proc, ctx)
        return
      }
      case 'lock-die': {
        const proc = this.procs.get(String(msg.process))
        if (proc !== undefined && proc.req === msg.req && proc.pending === msg.resource)
          this.abort(proc, 'wait-die', ctx)
        return
      }
      case 'wound': {
        const proc = this.procs.get(String(msg.process))
        if (proc === undefined) return
        // The wounded request: held, or granted with the grant still on its way (then the
        // abort's release of the pending request frees the lock all the same).
        const holds = proc.held.get(msg.resource) === msg.req
        const granting = proc.pending === msg.resource && proc.req === msg.req
        if (holds || granting) this.abort(proc, 'wound-wait', ctx)
        return
      }
      case 'abort': {
        const proc = this.procs.get(String(msg.process))
        if (proc !== undefined && (proc.state === 'blocked' || proc.state === 'acquiring'))
          this.abort(proc, 'deadlock-victim', ctx)
        return
      }
    }
  }

  private begin(proc: Proc, first: boolean, ctx: ManagerCtx): void {
    // The timestamp is taken once: a restarted process keeps it, so it ages and cannot starve.
    if (first) proc.ref = { ...proc.ref, timestamp: ctx.now() }
    proc.state = 'acquiring'
    proc.next = 0
    ctx.emit({ type: 'started', process: proc.ref.id, timestamp: proc.ref.timestamp })
    this.acquireNext(proc, ctx)
  }

  /** Runs the script from `proc.next` until a step has to wait (a lock, a work timer) or the end. */
  private acquireNext(proc: Proc, ctx: ManagerCtx): void {
    for (;;) {
      const step = proc.steps[proc.next]
      if (step === undefined) {
        this.finish(proc, ctx)
        return
      }
      if ('work' in step) {
        proc.state = 'working'
        ctx.setTimer(`work:${String(proc.ref.id)}`, step.work)
        return
      }
      if ('release' in step) {
        this.release(proc, step.release, ctx)
        proc.next++
        continue
      }
      if (proc.held.has(step.acquire)) {
        proc.next++ // re-acquiring what it holds is a no-op
        continue
      }
      proc.state = 'acquiring'
      proc.req++
      proc.pending = step.acquire
      this.env.send(
        this.env.siteOf(step.acquire),
        {
          type: 'lock-request',
          proc: proc.ref,
          resource: step.acquire,
          req: proc.req,
        },
        ctx,
      )
      return
    }
  }

  private release(proc: Proc, resource: string, ctx: ManagerCtx): void {
    const req = proc.held.get(resource)
    if (req === undefined) return
    proc.held.delete(resource)
    this.env.send(
      this.env.siteOf(resource),
      {
        type: 'lock-release',
        process: proc.ref.id,
        resource,
        req,
      },
      ctx,
    )
    ctx.emit({ type: 'released', process: proc.ref.id, resource })
  }

  private finish(proc: Proc, ctx: ManagerCtx): void {
    this.releaseAll(proc, ctx)
    proc.state = 'finished'
    ctx.emit({ type: 'finished', process: proc.ref.id })
  }

  private abort(
    proc: Proc,
    reason: 'deadlock-victim' | 'wait-die' | 'wound-wait',
    ctx: ManagerCtx,
  ): void {
    if (proc.state === 'finished' || proc.state === 'aborted') return
    if (proc.pending !== undefined) {
      this.env.send(
        this.env.siteOf(proc.pending),
        {
          type: 'lock-release',
          process: proc.ref.id,
          resource: proc.pending,
          req: proc.req,
        },
        ctx,
      )
    }
    proc.pending = undefined
    proc.waiting = undefined
    this.releaseAll(proc, ctx)
    ctx.cancelTimer(`work:${String(proc.ref.id)}`)
    proc.state = 'aborted'
    ctx.emit({ type: 'aborted', process: proc.ref.id, reason })
    if (this.options.restartAfterMs !== undefined)
      ctx.setTimer(`restart:${String(proc.ref.id)}`, this.options.restartAfterMs)
  }

  private releaseAll(proc: Proc, ctx: ManagerCtx): void {
    for (const resource of [...proc.held.keys()]) this.release(proc, resource, ctx)
  }
}

/** A process as `HomeSide.snapshot` gives it. */
type SavedProc = Omit<Proc, 'spec' | 'held' | 'pending' | 'waiting'> & {
  key: string
  held: Array<{ resource: string; req: number }>
  pending: string | null
  waiting: NonNullable<Proc['waiting']> | null
}

/**
 * Held locks in the order they were taken, which is the order they are released in: the script's
 * (each resource at its last acquire before step `next`), so the snapshot need not keep it.
 */
function heldInOrder<T extends { resource: string }>(
  steps: readonly ProcessStep[],
  next: number,
  held: readonly T[],
): T[] {
  const at = (resource: string) => {
    for (let i = Math.min(next, steps.length - 1); i >= 0; i--) {
      const step = steps[i]!
      if ('acquire' in step && step.acquire === resource) return i
    }
    return -1
  }
  return [...held].sort((a, b) => at(a.resource) - at(b.resource))
}

function splitKey(key: string): [string, string] {
  const at = key.indexOf(':')
  return at < 0 ? [key, ''] : [key.slice(0, at), key.slice(at + 1)]
}
