/**
 * The storage service the workload writes to: one counter that protects itself with fencing
 * tokens. Every operation carries the token of the lock grant it is made under, and the store
 * refuses any operation whose token is older than the newest it has seen (a fencing rejection).
 * Reads are fenced too: a holder whose read was taken cannot have its write overtaken by an older
 * holder's late write, so a read-add-write under the lock is never lost. The check is `@sd/mutex`'s
 * `createFence` with `strictReads` (one watermark for reads and writes, which is the fenced
 * register of linearizable.ts).
 *
 * The parent process owns it and handles one operation at a time, so the check and the update are
 * one step. Each accepted write is also saved to a file (write a temporary file, rename it over),
 * which is where the final counter is read from.
 *
 * The store does not trust the lock: it counts every accepted write ("acknowledged") and records a
 * write whose value is not the counter plus one (two holders with the same token would do that).
 * At the end the counter must equal the acknowledged writes exactly.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createFence } from '@sd/mutex'

export interface StoreState {
  counter: number
  /** Writes accepted (and answered as such). */
  acknowledged: number
  /** The newest token seen in an accepted operation. */
  newestToken: number
  /** Operations refused because their token was older than `newestToken`. */
  fencingRejections: number
}

export type OpResult = { ok: true; value: number } | { ok: false; reason: string }

export interface Rejection {
  node: string
  kind: 'read' | 'write'
  token: number
  newest: number
}

export class FencedStore {
  private state: StoreState = { counter: 0, acknowledged: 0, newestToken: 0, fencingRejections: 0 }
  private readonly fencing = createFence({ name: 'counter', strictReads: true })
  /** Writes that did not add exactly one to the counter: a broken lock. */
  readonly anomalies: string[] = []
  readonly rejections: Rejection[] = []

  /** `path`: where each accepted write is saved; none keeps it in memory only. */
  constructor(private readonly path?: string) {
    this.save()
  }

  get snapshot(): StoreState {
    return { ...this.state }
  }

  read(node: string, token: number): OpResult {
    const refused = this.fence(node, 'read', token)
    return refused ?? { ok: true, value: this.state.counter }
  }

  write(node: string, token: number, value: number): OpResult {
    if (!Number.isSafeInteger(value)) return { ok: false, reason: `bad value ${String(value)}` }
    const refused = this.fence(node, 'write', token)
    if (refused) return refused
    if (value !== this.state.counter + 1) {
      this.anomalies.push(
        `${node} wrote ${value} with token ${token} over ${this.state.counter}: an increment was lost`,
      )
    }
    this.state.counter = value
    this.state.acknowledged++
    this.save()
    return { ok: true, value }
  }

  private fence(node: string, kind: 'read' | 'write', token: number): OpResult | undefined {
    if (!Number.isSafeInteger(token) || token <= 0) {
      return { ok: false, reason: `bad token ${String(token)}` }
    }
    const verdict = this.fencing.admit(token, { kind })
    if (!verdict.ok) {
      const { newest } = verdict.error
      this.state.fencingRejections++
      this.rejections.push({ node, kind, token, newest })
      return { ok: false, reason: `fenced: token ${token} is older than ${newest}` }
    }
    this.state.newestToken = token // accepted: at or above every token before it
    return undefined
  }

  private save(): void {
    if (this.path === undefined) return
    const tmp = `${this.path}.tmp`
    writeFileSync(tmp, JSON.stringify(this.state))
    renameSync(tmp, this.path)
  }
}

/** The counter file as saved (what the summary reports). */
export function readStoreFile(path: string): StoreState {
  return JSON.parse(readFileSync(path, 'utf8')) as StoreState
}
