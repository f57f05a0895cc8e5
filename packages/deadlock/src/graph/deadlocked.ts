import type { Csr } from './csr.js'
import type { ComponentGroups, SccLabels } from './tarjan.js'

/**
 * Which components are deadlocked in the AND model: those with a cycle (two nodes or more, as
 * self-waits are not allowed), and those with an edge into a deadlocked one. Tarjan numbers the
 * components in reverse topological order, so one pass in increasing order sees every successor
 * component settled before the components that wait for it: O(V + E) in all, with no reverse graph.
 */
export function deadlockedComponents(
  csr: Csr,
  labels: SccLabels,
  groups: ComponentGroups,
): Uint8Array {
  const { offsets, targets } = csr
  const { component, count } = labels
  const { start, members } = groups
  const dead = new Uint8Array(count)
  for (let c = 0; c < count; c++) {
    if (start[c + 1]! - start[c]! > 1) {
      dead[c] = 1
      continue
    }
    const v = members[start[c]!]!
    for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
      if (dead[component[targets[e]!]!] === 1) {
        dead[c] = 1
        break
      }
    }
  }
  return dead
}
