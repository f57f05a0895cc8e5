import { displayWidth, padToWidth } from './width.js'

/** The symbols of the diagram, for `sd --legend` and the README. */
export const LEGEND: readonly [symbol: string, meaning: string][] = [
  ['→2 #5 ping', 'this node sends message 5 (of type ping) to node 2'],
  ['←1 #5 ping', 'message 5 from node 1 is delivered here'],
  ['✕ #5 loss', 'message 5, sent by this node, is dropped (loss, partition, receiver-crashed…)'],
  ['⧉ #5', 'message 5 is duplicated by the network: it will be delivered twice'],
  ['⏰ key', 'a timer of this node fires'],
  ['★ …', "the protocol emits an event (the scenario's note first, then the raw event)"],
  ['▶ …', 'a local request to this node (the application asks it to do something)'],
  ['💥 crash', 'the node crashes: it loses its state and ignores everything'],
  ['↻ restart', 'the node restarts with a fresh state'],
  ['‖ pause', 'the node is paused (--pause): it runs nothing; its inputs and timers wait'],
  ['‖▸ resume (3 held)', 'the node runs again and handles the 3 events that waited, in order'],
  [
    '⇅ -500 ms',
    "the node's wall clock jumps by -500 ms (--clock-step; its monotonic clock does not)",
  ],
  ['‼ …', 'the protocol threw an error: the run stops'],
  ['│', 'the node is up; time goes down'],
  ['┊', 'the node is down (crashed)'],
  ['┃', 'the node is paused (between ‖ pause and ‖▸ resume)'],
  ['── partition {1,2} | {3} ──', 'the network splits: messages between groups are dropped'],
  ['── heal ──', 'the partition ends'],
  ['t (ms)', 'virtual time of the row, in milliseconds since the start'],
  ['  more…', 'an indented line under a row: the rest of a cell that did not fit'],
]

/** The legend as text, one symbol per line. */
export function legendText(): string {
  const width = Math.max(...LEGEND.map(([symbol]) => displayWidth(symbol)))
  return [
    'legend of the diagram (one column per node, one row per event):',
    ...LEGEND.map(([symbol, meaning]) => `  ${padToWidth(symbol, width)}  ${meaning}`),
    'compact view (many nodes or a narrow terminal): the same symbols, cells cut to fit (…)',
  ].join('\n')
}

/** One line under each diagram, pointing to the legend. */
export const LEGEND_HINT =
  'symbols: → send, ← deliver, ✕ drop, ⏰ timer, ★ event, 💥 crash (sd --legend)'
