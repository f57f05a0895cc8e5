/**
 * The software clocks a timesync run keeps beside its protocols (one per node, the latest
 * incarnation's), as side state: the run reads them (`clockOf`), and a reading moves a clock's
 * high-water mark, so a rewind must put each back as it was. A running node's clock is also its
 * protocol's, which the checkpoint restored already from an equal snapshot: restoring it again is
 * harmless. A crashed node's is no protocol's: only this puts it back.
 */
import type { DisciplinedClock } from '@sd/timesync'
import { InvalidArgumentError, isNodeId, type NodeId } from '@sd/transport'
import type { SideState } from '../../side-state.js'

export function clocksSideState(
  clocks: Map<NodeId, DisciplinedClock>,
  make: () => DisciplinedClock,
): SideState {
  const check = (saved: unknown): Array<[NodeId, unknown]> => {
    if (
      !Array.isArray(saved) ||
      !saved.every((e) => Array.isArray(e) && e.length === 2 && isNodeId(e[0]))
    )
      throw new InvalidArgumentError('side state: expected [node, clock snapshot] pairs')
    // Each snapshot tried on a spare clock: a misfit throws before any clock changes.
    for (const [, snapshot] of saved) make().restore(snapshot)
    return saved as Array<[NodeId, unknown]>
  }
  return {
    save: () => [...clocks].map(([id, clock]) => [id, clock.snapshot()]),
    check,
    restore(saved) {
      const pairs = check(saved)
      const current = new Map(clocks)
      clocks.clear()
      for (const [id, snapshot] of pairs) {
        const clock = current.get(id) ?? make()
        clock.restore(snapshot)
        clocks.set(id, clock)
      }
    },
  }
}
