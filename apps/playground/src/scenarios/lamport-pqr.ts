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
import { isNamedPairs, keepSideState } from '../side-state.js'
import { PAUSE_SLOW } from './lamport.js'

/** Node 1 is P, node 2 is Q, node 3 is R, as in the slides' figure. */
const NAMES: Record<number, string> = { 1: 'P', 2: 'Q', 3: 'R' }
const name = (id: NodeId) => NAMES[Number(id)] ?? String(id)

/** A message of the figure: its name (M1..M4) is its type; it carries its sender's clock. */
interface Stamped {
  type: string
  t: number
}

type Step = { type: 'internal'; label: string } | { type: 'send'; label: string; to: NodeId }

/**
 * The slides' Lamport figure (seed 002), event by event: when (ms), where, what. Each process
 * starts at 0 and adds 1 per event (R1); a message carries its sender's clock (M1 leaves P at
 * 1); a receipt sets C = max(C, t) + 1 (R2), so R, at 1, receives (M2, 3) and goes to 4, and P,
 * at 2, receives (M4, 8) and jumps to 9.
 */
const SCRIPT: ReadonlyArray<{ at: number; node: NodeId; step: Step }> = [
  { at: 1, node: 1, step: { type: 'send', label: 'M1', to: 2 } },
  { at: 2, node: 2, step: { type: 'internal', label: 'e' } },
  { at: 3, node: 3, step: { type: 'internal', label: 'k' } },
  { at: 6, node: 1, step: { type: 'internal', label: 'c' } },
  { at: 8, node: 2, step: { type: 'send', label: 'M2', to: 3 } },
  { at: 10, node: 2, step: { type: 'internal', label: 'h' } },
  { at: 14, node: 3, step: { type: 'internal', label: 'l' } },
  { at: 16, node: 3, step: { type: 'send', label: 'M3', to: 2 } },
  { at: 18, node: 3, step: { type: 'internal', label: 'o' } },
  { at: 22, node: 2, step: { type: 'send', label: 'M4', to: 1 } },
  { at: 28, node: 1, step: { type: 'internal', label: 'n' } },
]

/** The clock each event must end with, from the figure: the run is checked against it. */
const EXPECTED: Record<string, number> = {
  'P send M1': 1,
  'Q e': 1,
  'R k': 1,
  'P c': 2,
  'Q receive M1': 2,
  'Q send M2': 3,
  'Q h': 4,
  'R receive M2': 4,
  'R l': 5,
  'R send M3': 6,
  'R o': 7,
  'Q receive M3': 7,
  'Q send M4': 8,
  'P receive M4': 9,
  'P n': 10,
}

interface Happened {
  what: string
  node: NodeId
  t: number
  clock: number
}

/**
 * Lamport clocks on the slides' worked example with processes P, Q and R: the clock values of
 * every event, the receipts that jump (R: max(1, 3) + 1 = 4; P: max(2, 8) + 1 = 9) and the total
 * order (T, pid) that breaks the ties.
 */
export const lamportPqr = {
  name: 'lamport-pqr',
  title:
    "the slides' Lamport example: P, Q and R, receipts C = max(C, t) + 1, total order (T, pid)",
  description:
    "Three processes P (node 1), Q (node 2) and R (node 3) play the figure of seed 002 event by event: four messages M1..M4 carry their sender's clock, each receipt sets C = max(C, t) + 1. Every event is labelled with its clock. Checks that each clock is the figure's, that the clock condition holds on every message (C(send) < C(receive)), and prints the total order (T, pid).",
  deterministic: 'the script is fixed (its times and a 3 ms latency on every link)',
  pause: { accepts: PAUSE_SLOW },
  defaultN: 3,
  minN: 3,
  maxN: 3,
  run({ faults }) {
    const net = new SimNetwork({ seed: 1, latency: 3 })
    const happened: Happened[] = []
    /** Row labels by what they are drawn on: a step's timer, a message's send or receipt. */
    const labels = new Map<string, string>()
    const sentClock = new Map<string, number>()
    const note = (node: NodeId, what: string, clock: number, row: string, label: string) => {
      happened.push({ what: `${name(node)} ${what}`, node, t: net.now, clock })
      labels.set(row, label)
    }

    net.launch<Stamped>([1, 2, 3], (self) => {
      const clock = new LamportClock({ pid: self })
      const steps = SCRIPT.filter((s) => s.node === self)
      return {
        start(ctx) {
          for (const { at, step } of steps) ctx.setTimer(step.label, at)
        },
        onTimer(key, ctx: Ctx<Stamped>) {
          const step = steps.find((s) => s.step.label === key)?.step
          if (step === undefined) return
          if (step.type === 'internal') {
            const c = clock.tick()
            note(self, step.label, c, `timer ${String(self)} ${key}`, `C=${c}`)
            return
          }
          const t = clock.send()
          sentClock.set(step.label, t)
          ctx.send(step.to, { type: step.label, t })
          note(self, `send ${step.label}`, t, `send ${step.label}`, `C=${t}`)
        },
        onMessage(_from, msg) {
          const before = clock.time
          const c = clock.receive(msg.t)
          const row = `deliver ${msg.type}`
          note(self, `receive ${msg.type}`, c, row, `C=max(${before},${msg.t})+1=${c}`)
        },
        // The clock is all a process keeps (its script's timers are the simulator's).
        snapshot: () => clock.time,
        restore(snapshot) {
          clock.restore(snapshot as number)
        },
      }
    })
    // What the run noted so far, put back as it was at a checkpoint (the lab rewinds from it).
    keepSideState(net, {
      save: () => ({ happened: happened.length, labels: [...labels], sent: [...sentClock] }),
      restore(saved) {
        const s = savedNotes(saved, happened.length)
        happened.length = s.happened
        labels.clear()
        for (const [row, label] of s.labels) labels.set(row, label)
        sentClock.clear()
        for (const [message, t] of s.sent) sentClock.set(message, t)
      },
    })
    planFaults(net, faults ?? [])
    net.run()
    const rowOf = (e: TraceEvent): string | undefined => {
      if (e.type === 'timer-fire') return `timer ${String(e.node)} ${e.key}`
      if (e.type === 'send' || e.type === 'deliver') {
        const sent = net.trace.find((s) => s.type === 'send' && s.id === e.id)
        const msg = sent?.type === 'send' ? sent.msg : undefined
        const type = typeof msg === 'object' && msg !== null && 'type' in msg ? msg.type : undefined
        return `${e.type} ${type}`
      }
      return undefined
    }

    const violations: string[] = []
    const faulted = (faults ?? []).length > 0
    for (const h of happened) {
      const want = EXPECTED[h.what]
      if (!faulted && want !== undefined && want !== h.clock)
        violations.push(`${h.what} has C=${h.clock}; the figure gives ${want}`)
      const m = /^. receive (M\d)$/.exec(h.what)
      const sent = m ? sentClock.get(m[1]!) : undefined
      if (sent !== undefined && !(sent < h.clock))
        violations.push(
          `clock condition broken: ${m![1]} sent at C=${sent}, received at C=${h.clock}`,
        )
    }
    const missing = Object.keys(EXPECTED).filter((w) => !happened.some((h) => h.what === w))
    const stamp = (h: Happened): LamportTimestamp => ({ time: h.clock, pid: h.node })
    const order = [...happened].sort((a, b) => compareLamport(stamp(a), stamp(b)))
    const jumps = happened.filter((h) => / receive /.test(h.what))
    return {
      net,
      violations,
      liveness: {
        property: 'every event of the figure happens',
        unfinished: missing.map((what) => ({
          what,
          why: 'it had not happened when the run went quiet',
          expected: false,
        })),
      },
      annotate: (event) => {
        const row = rowOf(event)
        return row === undefined ? undefined : labels.get(row)
      },
      result: {
        processes: { P: 1, Q: 2, R: 3 },
        events: happened,
        totalOrder: order.map((h) => h.what),
      },
      summary: [
        'node 1 = P, node 2 = Q, node 3 = R; every event adds 1 (R1); a receipt sets C = max(C, t) + 1 (R2)',
        `receipts: ${jumps.map((h) => `${h.what.replace(' receive', ' gets')} -> ${h.clock}`).join(', ')}`,
        `total order (T, pid): ${order.map((h) => `(${h.clock},${name(h.node)})`).join(' < ')}`,
        'ties of C (three events have C=1) are broken by the process id: the total order every process can compute alone',
      ],
    }
  },
} satisfies Scenario

/** A saved side state of the figure's run: the events noted (no more than now), labels, clocks sent. */
function savedNotes(
  saved: unknown,
  happened: number,
): { happened: number; labels: [string, string][]; sent: [string, number][] } {
  const s = saved as { happened?: unknown; labels?: unknown; sent?: unknown } | null
  if (
    typeof s !== 'object' ||
    s === null ||
    !Number.isSafeInteger(s.happened) ||
    (s.happened as number) < 0 ||
    (s.happened as number) > happened ||
    !isNamedPairs(s.labels, (x) => typeof x === 'string') ||
    !isNamedPairs(s.sent, (x) => Number.isSafeInteger(x))
  )
    throw new InvalidArgumentError(
      `lamport-pqr: side state is { happened up to ${happened}, labels: [row, label][], sent: [message, clock][] }`,
    )
  return s as { happened: number; labels: [string, string][]; sent: [string, number][] }
}
