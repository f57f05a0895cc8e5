/**
 * Lessons: the course texts' worked examples as guided walkthroughs. A lesson opens a scenario
 * and tells its story in beats; each beat is shown from the first step at which its cue is in
 * the trace (a crash, a message of a type, an emitted event, a virtual time), in Portuguese (the
 * texts' language) or English. A beat may ask the student to act (`act`: the step its button
 * takes, "now crash 7") and says what to look for. Pure data and a pure cue finder: the page
 * shows them, the tests play them.
 */
import type { TraceEvent } from '@sd/transport'
import type { LabConfig } from './config.js'
import { lessons } from './lesson-texts.js'

export type Text = { pt: string; en: string }

/** When a beat begins: the first trace entry that matches (all given fields must). */
export interface Cue {
  /** Virtual time reached. */
  t?: number
  /** Entry type: `crash`, `restart`, `send`, `deliver`, `emit`... */
  type?: string
  node?: string
  /** The message's type (`send`, `deliver`) or the emitted event's type (`emit`). */
  what?: string
}

export interface Beat {
  cue: Cue
  say: Text
  /** What to look for in the drawing. */
  look?: Text
  /** The step the student is asked to take here, as its word (`crash:7`). */
  act?: string
}

export interface Lesson {
  id: string
  title: Text
  /** The run it opens (steps empty: the student makes them). */
  config: Omit<LabConfig, 'steps'>
  beats: Beat[]
}

/** The texts' twelve worked examples (their texts: `lesson-texts.ts`, `lesson-texts-more.ts`). */
export { lessons }

export function lessonOf(id: string): Lesson | undefined {
  return lessons.find((l) => l.id === id)
}

function typeOf(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null && 'type' in value
    ? String(value.type)
    : undefined
}

/** Whether the trace entry matches the cue. */
export function matches(cue: Cue, e: TraceEvent): boolean {
  if (cue.t !== undefined && e.t < cue.t) return false
  if (cue.type !== undefined && e.type !== cue.type) return false
  const node =
    'node' in e ? e.node : e.type === 'send' ? e.from : e.type === 'deliver' ? e.to : undefined
  if (cue.node !== undefined && String(node) !== cue.node) return false
  if (cue.what !== undefined) {
    const what = 'msg' in e ? typeOf(e.msg) : e.type === 'emit' ? typeOf(e.event) : undefined
    if (what !== cue.what) return false
  }
  return true
}

/** The index of the beat showing once the trace is `trace`: the last one whose cue came. */
export function beatAt(lesson: Lesson, trace: readonly TraceEvent[]): number {
  return beatOf(lesson, trace).beat
}

/** The beat showing, and the index of the trace entry that cued it (-1 for the first beat). */
export function beatOf(lesson: Lesson, trace: readonly TraceEvent[]): { beat: number; at: number } {
  let shown = 0
  let at = -1
  let from = 0
  for (let b = 1; b < lesson.beats.length; b++) {
    const cue = lesson.beats[b]!.cue
    let found = -1
    for (let i = from; i < trace.length; i++)
      if (matches(cue, trace[i]!)) {
        found = i
        break
      }
    if (found < 0) break
    shown = b
    at = found
    from = found
  }
  return { beat: shown, at }
}
