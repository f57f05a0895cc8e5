/**
 * Parts of the state key that are data (a node's snapshot, its disk): hashed as data
 * (`hashValue`), without writing their text; the canonical text is written only when asked (a
 * key fingerprint). Equal data gives equal hashes, whatever the order its keys were made in.
 */
import { CanonicalText, canonicalKey } from '../canonical.js'
import { cloneData } from '../clone-data.js'
import type { NodeId } from '../ids.js'
import { hashValue } from '../value-hash.js'

/** Data that does not change (a disk's entries, copied and frozen): kept as it is. */
export class DataText extends CanonicalText {
  /**
   * @param value the data
   * @param where names it when it is not plain data (asked only then)
   */
  constructor(
    protected value: unknown,
    protected readonly where: () => string,
  ) {
    super()
  }

  /** Not `hashText(text)`: a hash of the data, equal for equal data all the same. */
  override get hash() {
    this.hashed ??= hashValue(this.source(), { hi: 0, lo: 0 }, this.where)
    return this.hashed
  }

  protected override write(): string {
    return canonicalKey(this.source(), this.where())
  }

  /** The data itself (a key abstraction reads it; not to be changed). */
  get data(): unknown {
    return this.source()
  }

  protected source(): unknown {
    return this.value
  }
}

/**
 * A running node's snapshot, taken while none of its handlers runs. It may share objects with
 * the instance: once a handler runs (`release`), only what was taken of it before stands, and a
 * checkpoint takes a copy of it (`kept`), to restore from.
 */
export class SnapshotText extends DataText {
  private held = true
  private saved: unknown

  /** @param copies the protocol promised `snapshotCopies`: the snapshot is its own already */
  constructor(
    value: unknown,
    node: NodeId,
    private readonly copies = false,
  ) {
    super(value, () => `snapshot of node ${JSON.stringify(node)}`)
  }

  /**
   * A copy of the snapshot, kept from now on and never handed out to change: `restore` takes a
   * copy of it (`cloneData`), as it took a parse of its JSON before. With `copies`, the snapshot
   * itself: its instance changes none of it.
   */
  kept(): unknown {
    if (this.saved === undefined) {
      void this.hash // refuses what is not plain data, as the key would
      this.saved = this.copies ? this.source() : cloneData(this.source())
    }
    return this.saved
  }

  /** Its node is about to run a handler: the snapshot object may change from here on. */
  release(): void {
    this.held = false
    this.value = undefined
  }

  protected override source(): unknown {
    if (this.held) return this.value
    if (this.saved !== undefined) return this.saved
    throw new Error(`${this.where()}: asked for after its node ran a handler (not saved before)`)
  }
}
