import { type AsyncDisposableLike, asyncDispose } from '@sd/transport'
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
  /** True until released, closed, or lost. */
  readonly held: boolean
  /** Resolves (never rejects) if the lease is lost while held; stays pending otherwise. */
  readonly lost: Promise<LeaseLostError>
  /** Aborted, with the `LeaseLostError` as reason, when the lease is lost while held. */
  readonly signal: PlatformAbortSignal
  /** Leaves the critical section. Idempotent; a no-op once the lease was lost. */
  release(): Promise<void>
}

/** The lock's side of a handle: the lock flips its state, the caller only releases. */
export class Lease implements MutexHandle {
  private state: 'held' | 'releasing' | 'done' = 'held'
  private readonly aborter = new AbortController()
  private resolveLost!: (error: LeaseLostError) => void
  private readonly waiting: Array<() => void> = []
  readonly lost: Promise<LeaseLostError>

  constructor(
    readonly resource: string,
    readonly token: number,
    /** Asks the lock to release this entry; `done()` is called once it is released. */
    private readonly requestRelease: (lease: Lease) => void,
  ) {
    this.lost = new Promise((resolve) => {
      this.resolveLost = resolve
    })
  }

  get held(): boolean {
    return this.state === 'held'
  }

  get signal(): PlatformAbortSignal {
    return this.aborter.signal as PlatformAbortSignal
  }

  /** True once `release()` was called (the lock then gives the resource back). */
  get releasing(): boolean {
    return this.state === 'releasing'
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
    for (const resolve of this.waiting.splice(0)) resolve()
  }

  /** The lease ran out or was revoked while held: the holder must stop using the resource. */
  lose(): void {
    if (this.state !== 'held') {
      this.done()
      return
    }
    const error = new LeaseLostError(this.resource, this.token)
    this.done()
    this.resolveLost(error)
    this.aborter.abort(error)
  }
}
