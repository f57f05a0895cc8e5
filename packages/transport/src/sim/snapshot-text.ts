/**
 * A running node's snapshot as a part of the state key, taken once while none of its handlers
 * runs: hashed as data (`hashValue`), without writing its text; the canonical text is written
 * only when asked (a key fingerprint), and a checkpoint keeps it as JSON, to restore from.
 * The snapshot may share objects with the instance: once a handler runs (`release`), only what
 * was taken of it before stands.
 */
import { CanonicalText, canonicalKey } from '../canonical.js'
import type { NodeId } from '../ids.js'
import { hashValue } from '../value-hash.js'

export class SnapshotText extends CanonicalText {
  private value: unknown
  private held = true
  private saved: string | undefined

  /** @param node the node's id, to say where a snapshot that is not plain data came from */
  constructor(
    value: unknown,
    private readonly node: NodeId,
  ) {
    super()
    this.value = value
  }

  private get where(): string {
    return `snapshot of node ${JSON.stringify(this.node)}`
  }

  /** Not `hashText(text)`: a hash of the data, equal for equal data all the same. */
  override get hash() {
    this.hashed ??= hashValue(this.source(), { hi: 0, lo: 0 }, () => this.where)
    return this.hashed
  }

  /** JSON of the snapshot (any key order: `restore` reads data), kept from now on. */
  json(): string {
    if (this.saved === undefined) {
      void this.hash // refuses what is not plain data, as the key would
      this.saved = this.written ?? JSON.stringify(this.source())
    }
    return this.saved
  }

  /** Its node is about to run a handler: the snapshot object may change from here on. */
  release(): void {
    this.held = false
    this.value = undefined
  }

  protected override write(): string {
    return canonicalKey(this.source(), this.where)
  }

  private source(): unknown {
    if (this.held) return this.value
    if (this.saved !== undefined) return JSON.parse(this.saved)
    throw new Error(`${this.where}: asked for after its node ran a handler (not saved before)`)
  }
}
