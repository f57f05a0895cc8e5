/**
 * The fingerprint's parts as a state key needs them: canonical text, cached where it was made
 * until what it shows changes (a node's snapshot until one of its handlers runs, its storage until
 * a commit, a message for good, a node's whole entry while it is the same entry).
 */
import { CanonicalText, canonicalKey } from '../canonical.js'
import type { NodeId } from '../ids.js'
import { type FingerprintParts, nodeText, sameEntry } from './fingerprint.js'
import { messageText } from './message-text.js'
import type { SimNode } from './sim-node.js'
import { SnapshotText } from './snapshot-text.js'

/** A running node's snapshot as a key part, cached until one of its handlers runs. */
export function stateText(node: SimNode): SnapshotText {
  const protocol = node.protocol!
  node.stateText ??= new SnapshotText(protocol.snapshot!(), node.id, protocol.snapshotCopies)
  return node.stateText
}

/** See `SimNetwork.keyFingerprint`. */
export function cachedParts(nodes: ReadonlyMap<NodeId, SimNode>): FingerprintParts {
  return {
    state: stateText,
    storage: (node) => node.storage.canonicalText(),
    message: (event) => new CanonicalText(messageText(event.msg)),
    node: (entry) => {
      const node = nodes.get(entry.id)!
      const last = node.entryText
      if (last !== undefined && sameEntry(last.entry, entry)) return last.text
      const text = new CanonicalText(nodeText(entry, canonicalKey))
      node.entryText = entry.backlog.length === 0 ? { entry, text } : undefined
      return text
    },
  }
}
