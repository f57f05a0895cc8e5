import { type AsyncDisposableLike, asyncDispose } from '@sd/transport'
import type { LockMode, PermitCount } from '../contract.js'
import { LeaseLostError } from '../errors.js'
import type { PlatformAbortSignal } from './signal.js'

/**
 * What `acquire` resolves with: this node holds `resource` until `release()` or a lost lease.
 * `await using h = await lock.acquire()` releases at the end of the block.
 */
export interface MutexHandle extends AsyncDisposableLike {
  /** The fencing token of this entry: pass it to the resource, which refuses older ones. */
  readonly token: number
  readonly resource: string
  /**
   * How the entry holds the resource: `'shared'` only when the algorithm granted a shared entry
   * (one without the feature grants an exclusive one for a shared acquire).
   */
  readonly mode: LockMode
  /** For a semaphore's entry the algorithm honoured: the permits it took, of how many. */
  readonly permits: PermitCount | undefined
  /**
   * True until released, closed, or lost. Read, it also compares the lease's end with the
   * monotonic clock: a process that was paused past its lease finds it false (and `signal`
   * aborted) before the lease timer's callback has run.
   */
  readonly held: boolean
  /**
   * Throws the `LeaseLostError` unless `held`: call it right before each write under the lock,
   * above all after an `await` (the process may have been paused there).
   */
  assertHeld(): void
  /** Resolves (never rejects) if the lease is lost while held; stays pending otherwise. */
  readonly lost: Promise<LeaseLostError>
  /** Aborted, with the `LeaseLostError` as reason, when the lease is lost while held. */
  readonly signal: PlatformAbortSignal
  /** Leaves the critical section. Idempotent; a no-op once the lease was lost. */
  release(): Promise<void>
}

/** What an entry is, as the protocol granted it, and who took this hold of it. */
export interface LeaseInfo {
  mode: LockMode
  permits: PermitCount | undefined
  /** What this holder asked for (local shared holders share an entry). */
  asked: LockMode | 'permits'
  owner: unknown
  /** Whether the entry's lease has ended on the lock's monotonic clock. */
  expired: () => boolean
}

/** The lock's side of a handle: the lock flips its state, the caller only releases. */
export class Lease implements MutexHandle {
  private state: 'held' | 'releasing' | 'done' = 'held'
  private readonly aborter = new AbortController()
  private resolveLost!: (error: LeaseLostError) => void
  private lostError: LeaseLostError | undefined
  private readonly waiting: Array<() => void> = []
  /** Reentrant holds taken inside this one (same token), still held. */
  private readonly nested = new Set<Lease>()
  readonly lost: Promise<LeaseLostError>

  constructor(
    readonly resource: string,
    readonly token: number,
    readonly info: LeaseInfo,
    /** Asks the lock to release this entry; `done()` is called once it is released. */
    private readonly requestRelease: (lease: Lease) => void,
  ) {
    this.lost = new Promise((resolve) => {
      this.resolveLost = resolve
    })
  }

  get mode(): LockMode {
    return this.info.mode
  }

  get permits(): PermitCount | undefined {
    return this.info.permits
  }

  get held(): boolean {
    if (this.state === 'held' && this.info.expired()) this.lose('expired')
    return this.state === 'held'
  }

  assertHeld(): void {
    if (this.held) return
    throw this.lostError ?? new LeaseLostError(this.resource, this.token, 'released')
  }

  get signal(): PlatformAbortSignal {
    return this.aborter.signal as PlatformAbortSignal
  }

  /** True once `release()` was called (the lock then gives the resource back). */
  get releasing(): boolean {
    return this.state === 'releasing'
  }

  /** Holds at once of its owner: this one and its nested ones. */
  get depth(): number {
    return 1 + this.nested.size
  }

  /** A reentrant hold inside this one: its release only ends itself. */
  nest(): Lease {
    const child: Lease = new Lease(this.resource, this.token, this.info, () => {
      this.nested.delete(child)
      child.done()
    })
    this.nested.add(child)
    return child
  }

  release(): Promise<void> {
    if (this.state === 'done') return Promise.resolve()
    const done = new Promise<void>((resolve) => this.waiting.push(resolve))
    if (this.state === 'held') {
      this.state = 'releasing'
      this.requestRelease(this)
    }
    return done
  }

  [asyncDispose](): Promise<void> {
    return this.release()
  }

  /** The protocol no longer holds this entry (released, closed, or lost). */
  done(): void {
    this.state = 'done'
    for (const child of this.nested) child.done()
    this.nested.clear()
    for (const resolve of this.waiting.splice(0)) resolve()
  }

  /** The lease ran out, was revoked or stolen while held: the holder must stop using the resource. */
  lose(reason?: string): void {
    for (const child of this.nested) child.lose(reason)
    this.nested.clear()
    if (this.state !== 'held') {
      this.done()
      return
    }
    const error = new LeaseLostError(this.resource, this.token, reason)
    this.lostError = error
    this.done()
    this.resolveLost(error)
    this.aborter.abort(error)
  }
}
