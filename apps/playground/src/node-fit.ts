/**
 * Which nodes the diagram draws when even its compact view is wider than the terminal (flood at
 * n = 64 wants 264 columns): as many as fit, those a fault struck first, then the lowest ids.
 * The rest is named in one line, so `--width` is honoured at any n.
 */
import type { NodeId, TraceEvent } from '@sd/transport'
import { chooseLayout } from './layout.js'

export interface NodeFit {
  /** The nodes to draw, in the run's order. */
  drawn: NodeId[]
  /** What was left out and how to see it; undefined when every node is drawn. */
  note: string | undefined
}

/** Events that make a node part of the story whoever else is left out. */
const FAULTS = new Set(['crash', 'restart', 'pause', 'resume', 'clock-step'])

export function nodesToDraw(
  nodes: readonly NodeId[],
  trace: readonly TraceEvent[],
  width: number,
): NodeFit {
  const lastTime = trace.reduce((max, e) => Math.max(max, e.t), 0)
  const fits = (count: number) => chooseLayout(count, width, lastTime).fits
  if (fits(nodes.length)) return { drawn: [...nodes], note: undefined }
  let room = nodes.length - 1
  while (room > 1 && !fits(room)) room--
  const struck = new Set<NodeId>()
  for (const e of trace) if (FAULTS.has(e.type) && 'node' in e) struck.add(e.node)
  const first = [...nodes.filter((id) => struck.has(id)), ...nodes.filter((id) => !struck.has(id))]
  const chosen = new Set(first.slice(0, room))
  const drawn = nodes.filter((id) => chosen.has(id))
  const needed = chooseLayout(nodes.length, 0, lastTime).total
  return {
    drawn,
    note: `${drawn.length} of ${nodes.length} nodes drawn (${ranges(drawn)}), those a fault struck first; --width ${needed} draws them all, and --trace FILE has every event`,
  }
}

/** Ids as runs: `1..20, 33, 64`. */
function ranges(ids: readonly NodeId[]): string {
  const parts: string[] = []
  for (let i = 0; i < ids.length; ) {
    let j = i
    while (typeof ids[j] === 'number' && ids[j + 1] === (ids[j] as number) + 1) j++
    parts.push(
      j - i >= 2
        ? `${String(ids[i])}..${String(ids[j])}`
        : ids
            .slice(i, j + 1)
            .map(String)
            .join(', '),
    )
    i = j + 1
  }
  return parts.join(', ')
}
