import type { CanonicalText } from '../canonical.js'
import type { NodeId } from '../ids.js'
import type { ProtocolInput } from '../protocol.js'
import type { JsonValue } from '../storage/json.js'
import { applyWrites } from '../storage/memory.js'
import type { StorageBackend, StorageWrites } from '../storage/types.js'
import { DataText } from './snapshot-text.js'
import type { TraceRecorder } from './trace-recorder.js'

/** A step about to commit its writes, as `crashBeforeCommit` sees it. */
export interface CommitStep {
  node: NodeId
  /** What the handler handled. */
  input: ProtocolInput
  /** Its writes: a value, or `undefined` for a delete. */
  writes: StorageWrites
}

/** How a planned crash inside a step leaves the runtime: not a failure of the protocol. */
export class PlannedCrash extends Error {}

/**
 * A simulated node's disk: committed entries, kept across crashes and restarts, and the
 * commit where `crashBeforeCommit` strikes.
 */
export class SimStorage {
  private readonly disk = new Map<string, JsonValue>()
  /** `entries()` as canonical text, until the disk changes. */
  private text: CanonicalText | undefined
  /** `save().disk`, until the disk changes: checkpoints share it. */
  private savedDisk: Array<[string, JsonValue]> | undefined
  /** A planned crash at the commit of a step that matches. */
  crashPlan: ((step: CommitStep) => boolean) | undefined
  /** What the running handler is handling (for `crashBeforeCommit`). */
  input: ProtocolInput | undefined

  /** @param crash crashes the node, when a planned crash strikes */
  constructor(
    private readonly node: NodeId,
    private readonly recorder: TraceRecorder,
    private readonly crash: () => void,
  ) {}

  /** The disk as the runtime sees it. */
  backend(): StorageBackend {
    return {
      load: () => this.disk, // the runtime copies what it loads
      commit: (writes) => {
        const plan = this.crashPlan
        const step = { node: this.node, input: this.input ?? { kind: 'start' }, writes }
        if (plan?.(step)) {
          this.crashPlan = undefined
          this.recorder.recordWrites(this.node, writes, 'discarded')
          this.crash()
          // Thrown so the runtime abandons the step even while `start` runs, before the
          // instance has a handle the crash could stop.
          throw new PlannedCrash()
        }
        applyWrites(this.disk, writes)
        this.text = undefined
        this.savedDisk = undefined
        this.recorder.recordWrites(this.node, writes, 'committed')
      },
    }
  }

  /** The disk and the plan, for a checkpoint (`load` puts them back). */
  save(): SimStorageState {
    this.savedDisk ??= [...this.disk]
    return { disk: this.savedDisk, text: this.text, crashPlan: this.crashPlan, input: this.input }
  }

  load(saved: SimStorageState): void {
    if (saved.disk !== this.savedDisk) {
      this.disk.clear()
      for (const [key, value] of saved.disk) this.disk.set(key, value)
      this.savedDisk = saved.disk
    }
    this.text = saved.text
    this.crashPlan = saved.crashPlan
    this.input = saved.input
  }

  /** The disk was lost. */
  wipe(): void {
    this.disk.clear()
    this.text = undefined
    this.savedDisk = undefined
  }

  /**
   * `entries()` as a key part, cached until the disk changes (fingerprints ask it state after
   * state): hashed as data, its canonical text written only when asked.
   */
  canonicalText(): CanonicalText {
    this.text ??= new DataText(this.entries(), () => `storage of node ${JSON.stringify(this.node)}`)
    return this.text
  }

  /** Committed entries, keys ascending. */
  entries(): Record<string, JsonValue> {
    return Object.fromEntries([...this.disk].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  }
}

/** See `SimStorage.save` (committed values are frozen copies: shared, not copied). */
export interface SimStorageState {
  disk: Array<[string, JsonValue]>
  text: CanonicalText | undefined
  crashPlan: ((step: CommitStep) => boolean) | undefined
  input: ProtocolInput | undefined
}
