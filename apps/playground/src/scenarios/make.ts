import { compareLamport, LamportClock, type LamportTimestamp } from '@sd/clocks'
import {
  type Ctx,
  InvalidArgumentError,
  type NodeId,
  SimNetwork,
  type TraceEvent,
} from '@sd/transport'
import { planFaults } from '../fault-plan.js'
import type { Scenario } from '../scenario.js'
import {
  addOnlyMaps,
  appendOnly,
  isNamedPairs,
  keepSideState,
  type SideState,
  together,
} from '../side-state.js'

/** Node 1 is the file server, node 2 the machine that compiles, node 3 the machine that edits. */
const SERVER = 1
const COMPILER = 2
const EDITOR = 3

interface FileStamp {
  /** Physical modification time: the writer's clock, in whole ms, as a file system records it. */
  mtime: number
  /** Lamport timestamp (T, pid) of the write. */
  stamp: LamportTimestamp
  /** Virtual (true) time of the write, which no machine can read: the ground truth. */
  trueTime: number
}

type Msg =
  | { type: 'write'; file: string; mtime: number; lamport: number }
  | { type: 'written'; file: string; lamport: number }
  | { type: 'open'; file: string; lamport: number }
  | { type: 'contents'; file: string; lamport: number }
  | { type: 'stat'; files: string[]; lamport: number }
  | { type: 'stats'; entries: Record<string, Omit<FileStamp, 'trueTime'>>; lamport: number }

type Req =
  | { type: 'compile'; source: string; target: string }
  | { type: 'edit'; file: string }
  | { type: 'make'; rules: [source: string, target: string][] }

interface Decision {
  source: string
  target: string
  physical: 'recompile' | 'up to date'
  lamport: 'recompile' | 'up to date'
  truth: 'recompile' | 'up to date'
  sourceFile: Omit<FileStamp, 'trueTime'>
  targetFile: Omit<FileStamp, 'trueTime'>
}

/**
 * The `make` example of seed 001. output.o is written at 2144 by the compiling machine; then
 * output.c is edited on a machine whose clock is 12 ms behind, so it is stamped about 2140 and
 * looks older than its object file: make by modification time does not recompile it, and the
 * program mixes old and new code. The same files stamped with Lamport timestamps (the editor
 * opened output.c after the compile, so its clock is past the compile's) give the right answer.
 * input.c is edited on the compiling machine itself: both orders agree that it needs a rebuild.
 */
export const make = {
  name: 'make',
  title: "seed 001's make example: a clock that is behind hides an edit; Lamport order finds it",
  description:
    'Three machines share a file server: node 1 serves files, node 2 compiles, node 3 edits with a clock 12 ms behind. output.c is edited after output.o was compiled, yet gets an earlier modification time, so make by modification time skips it; the same files stamped with Lamport timestamps give the right answer. Checks that the Lamport decisions match the true order of the writes.',
  pause: {
    accepts:
      'a paused machine only acts late (its held messages are handled at its resume); the stamps it writes then come from its clock at that moment',
  },
  clockStep: {
    accepts:
      "a step of a machine's clock changes the modification times it writes after it (make by mtime may then decide otherwise); the Lamport decisions must still match the true order",
  },
  defaultN: 3,
  minN: 3,
  maxN: 3,
  run({ seed, faults }) {
    const net = new SimNetwork({ seed, latency: { kind: 'uniform', min: 0.5, max: 2 } })
    const files = new Map<string, FileStamp>()
    const decisions: Decision[] = []
    const events: Record<string, unknown>[] = []
    const labels = new Map<TraceEvent, string>()
    let pendingRules: [string, string][] = []
    /** Whether make got the stamps it asked for (and so decided). */
    let looked = false
    const note = (node: NodeId, what: string, clock: LamportClock, ctx: Ctx<Msg>, extra = {}) => {
      const trace = net.trace[net.trace.length - 1]!
      const physical = Math.floor(ctx.now())
      events.push({ node, t: net.now, what, lamport: clock.time, physical, ...extra })
      labels.set(trace, `${what} C=${clock.time} clock=${physical}`)
    }

    net.launch<Msg, Req>([SERVER, COMPILER, EDITOR], (self) => {
      const clock = new LamportClock({ pid: self })
      const write = (ctx: Ctx<Msg>, file: string) => {
        const lamport = clock.send()
        ctx.send(SERVER, { type: 'write', file, mtime: Math.floor(ctx.now()), lamport })
        note(self, `write ${file}`, clock, ctx)
      }
      return {
        onRequest(req, ctx) {
          if (req.type === 'compile') {
            clock.tick()
            note(self, `compile ${req.source}`, clock, ctx)
            write(ctx, req.target)
          } else if (req.type === 'edit') {
            const lamport = clock.send()
            ctx.send(SERVER, { type: 'open', file: req.file, lamport })
            note(self, `open ${req.file}`, clock, ctx)
          } else {
            const lamport = clock.send()
            ctx.send(SERVER, { type: 'stat', files: req.rules.flat(), lamport })
            note(self, 'make: stat files', clock, ctx)
            pendingRules = req.rules
          }
        },
        onMessage(from, msg, ctx) {
          clock.receive(msg.lamport)
          switch (msg.type) {
            case 'write': {
              // The file system keeps the writer's stamps: the writer's clock and its (T, pid).
              files.set(msg.file, {
                mtime: msg.mtime,
                stamp: { time: msg.lamport, pid: from },
                trueTime: net.now,
              })
              note(self, `store ${msg.file}`, clock, ctx, { file: msg.file, mtime: msg.mtime })
              ctx.send(from, { type: 'written', file: msg.file, lamport: clock.send() })
              break
            }
            case 'open':
              note(self, `read ${msg.file}`, clock, ctx)
              ctx.send(from, { type: 'contents', file: msg.file, lamport: clock.send() })
              break
            case 'stat': {
              const entries: Record<string, Omit<FileStamp, 'trueTime'>> = {}
              for (const f of msg.files) {
                const e = files.get(f)
                if (e) entries[f] = { mtime: e.mtime, stamp: e.stamp }
              }
              note(self, 'stat', clock, ctx)
              ctx.send(from, { type: 'stats', entries, lamport: clock.send() })
              break
            }
            case 'contents':
              note(self, `edit ${msg.file}`, clock, ctx)
              write(ctx, msg.file)
              break
            case 'written':
              note(self, `saved ${msg.file}`, clock, ctx)
              break
            case 'stats': {
              note(self, 'make: decide', clock, ctx)
              looked = true
              for (const [source, target] of pendingRules) {
                const s = msg.entries[source]
                const o = msg.entries[target]
                if (!s || !o) continue
                const truth = files.get(source)!.trueTime > files.get(target)!.trueTime
                decisions.push({
                  source,
                  target,
                  physical: s.mtime > o.mtime ? 'recompile' : 'up to date',
                  lamport: compareLamport(s.stamp, o.stamp) > 0 ? 'recompile' : 'up to date',
                  truth: truth ? 'recompile' : 'up to date',
                  sourceFile: s,
                  targetFile: o,
                })
              }
              break
            }
          }
        },
        // A machine keeps its Lamport clock; the files it serves and make's rules are the
        // scenario's (below), saved beside the network.
        snapshot: () => clock.time,
        restore(snapshot) {
          clock.restore(snapshot as number)
        },
      }
    })
    const shared: SideState = {
      save: () => ({
        files: [...files].map(([file, f]) => [file, { ...f, stamp: { ...f.stamp } }]),
        rules: pendingRules.map(([source, target]) => [source, target]),
        looked,
      }),
      check: checkShared,
      restore(saved) {
        const s = checkShared(saved)
        files.clear()
        for (const [file, f] of s.files) files.set(file, { ...f, stamp: { ...f.stamp } })
        pendingRules = s.rules.map(([source, target]) => [source, target])
        looked = s.looked
      },
    }
    // The lists only grow, a label is set once on each step's trace entry, and the files, rules
    // and whether make looked are copied whole: the lab rewinds the run from a checkpoint.
    keepSideState(net, together([appendOnly([decisions, events]), addOnlyMaps([labels]), shared]))
    net.setClock(SERVER, { offset: 2136 })
    net.setClock(COMPILER, { offset: 2140 })
    net.setClock(EDITOR, { offset: 2128 })
    net.request<Req>(COMPILER, { type: 'compile', source: 'input.c', target: 'input.o' }, 1)
    net.request<Req>(COMPILER, { type: 'compile', source: 'output.c', target: 'output.o' }, 4)
    net.request<Req>(COMPILER, { type: 'edit', file: 'input.c' }, 6)
    net.request<Req>(EDITOR, { type: 'edit', file: 'output.c' }, 10)
    net.request<Req>(
      COMPILER,
      {
        type: 'make',
        rules: [
          ['input.c', 'input.o'],
          ['output.c', 'output.o'],
        ],
      },
      30,
    )
    planFaults(net, faults ?? [])
    net.run()

    const violations: string[] = []
    for (const d of decisions) {
      if (d.lamport !== d.truth) {
        violations.push(
          `make by Lamport order says ${d.target} is ${d.lamport}, but ${d.source} was edited ${d.truth === 'recompile' ? 'after' : 'before'} it`,
        )
      }
    }

    // The plan itself makes both rules decidable; faults may reorder it (said in the summary).
    if ((faults ?? []).length === 0 && decisions.length !== 2)
      violations.push(`make decided ${decisions.length} rules, expected 2`)
    const wrongByClock = decisions.filter((d) => d.physical !== d.truth)
    const line = (d: Decision) =>
      `${d.source} (mtime ${d.sourceFile.mtime}, T=(${d.sourceFile.stamp.time},${d.sourceFile.stamp.pid})) vs ${d.target} (mtime ${d.targetFile.mtime}, T=(${d.targetFile.stamp.time},${d.targetFile.stamp.pid})): by mtime "${d.physical}", by Lamport "${d.lamport}", truly "${d.truth}"`
    return {
      net,
      violations,
      liveness: {
        property: 'make gets the stamps it asks for and decides',
        unfinished: looked
          ? []
          : [
              {
                what: 'the decisions of make',
                why: 'its stat was never answered before the run went quiet',
                expected: false,
              },
            ],
      },
      annotate: (event) => labels.get(event),
      result: {
        nodes: { fileServer: SERVER, compiler: COMPILER, editor: EDITOR },
        clockOffsetsMs: { [SERVER]: 2136, [COMPILER]: 2140, [EDITOR]: 2128 },
        files: Object.fromEntries(files),
        decisions,
        wrongByModificationTime: wrongByClock.map((d) => d.target),
        events,
      },
      summary: [
        'node 1 = file server, node 2 = compiling machine (clock +2140 ms), node 3 = editing machine (clock +2128 ms, 12 ms behind)',
        ...decisions.map(line),
        ...(looked && decisions.length < 2
          ? [
              `make decided ${decisions.length} of 2 rules: the other's files did not both exist yet when it looked (the faults reordered the workload)`,
            ]
          : []),
        wrongByClock.length
          ? `make by modification time would skip ${wrongByClock.map((d) => d.source).join(', ')}: the binary would mix old and new code; Lamport timestamps order the edit after the compile`
          : 'this time the clocks happened to agree',
      ],
    }
  },
} satisfies Scenario

/** The files served, make's rules and whether it looked, as `save` gave them; anything else throws. */
function checkShared(saved: unknown): {
  files: [string, FileStamp][]
  rules: [string, string][]
  looked: boolean
} {
  const s = saved as { files?: unknown; rules?: unknown; looked?: unknown } | null
  const isFile = (f: unknown) => {
    const v = f as FileStamp | null
    return (
      typeof v === 'object' &&
      v !== null &&
      Number.isFinite(v.mtime) &&
      Number.isFinite(v.trueTime) &&
      typeof v.stamp === 'object' &&
      v.stamp !== null &&
      Number.isSafeInteger(v.stamp.time)
    )
  }
  if (
    typeof s !== 'object' ||
    s === null ||
    !isNamedPairs(s.files, isFile) ||
    !isNamedPairs(s.rules, (x) => typeof x === 'string') ||
    typeof s.looked !== 'boolean'
  )
    throw new InvalidArgumentError(
      'make: side state is { files: [name, { mtime, stamp, trueTime }][], rules: [source, target][], looked }',
    )
  return s as { files: [string, FileStamp][]; rules: [string, string][]; looked: boolean }
}
