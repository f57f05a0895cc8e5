/**
 * A lab run's choices as text: the steps taken since the setup, one word each. The words of an
 * `sd check` schedule (`m:1>2#3`, `t:2#1`, `drop:m:1>2#3`, `dup:…`, `crash:3`, `pause:2@1500`,
 * `step:1@-1000`) mean what they mean there, so a counterexample opens as it is; the lab adds
 * `auto` (the event the run would take next by itself), written `~12` for twelve of them, and the
 * faults a student injects by hand: `restart:3`, `hold:2` / `resume:2` (a pause without an end),
 * `cut:1-2` / `mend:1-2` (one link, both ways), `part:1,2|3` and `heal` (a partition).
 */

export type Step =
  | { kind: 'auto' }
  /** An event of `SimNetwork.choices`, by its key: it happens now. */
  | { kind: 'happen'; key: string }
  | { kind: 'drop'; key: string }
  | { kind: 'dup'; key: string }
  | { kind: 'crash'; node: string }
  | { kind: 'restart'; node: string }
  /** `sd check`'s timed pause: the node stops for `ms`, then resumes by a planned action. */
  | { kind: 'pause'; node: string; ms: number }
  | { kind: 'hold'; node: string }
  | { kind: 'resume'; node: string }
  | { kind: 'clock'; node: string; deltaMs: number }
  | { kind: 'cut'; a: string; b: string }
  | { kind: 'mend'; a: string; b: string }
  | { kind: 'part'; groups: string[][] }
  | { kind: 'heal' }

export const AUTO: Step = { kind: 'auto' }

/** One step as its word. */
export function stepText(step: Step): string {
  switch (step.kind) {
    case 'auto':
      return '~1'
    case 'happen':
      return step.key
    case 'drop':
      return `drop:${step.key}`
    case 'dup':
      return `dup:${step.key}`
    case 'crash':
    case 'restart':
    case 'hold':
    case 'resume':
      return `${step.kind}:${step.node}`
    case 'pause':
      return `pause:${step.node}@${step.ms}`
    case 'clock':
      return `step:${step.node}@${step.deltaMs}`
    case 'cut':
    case 'mend':
      return `${step.kind}:${step.a}-${step.b}`
    case 'part':
      return `part:${step.groups.map((g) => g.join(',')).join('|')}`
    case 'heal':
      return 'heal'
  }
}

/** The steps as text, runs of `auto` as `~N`: what the URL and the page show. */
export function formatSteps(steps: readonly Step[]): string {
  const out: string[] = []
  let autos = 0
  for (const step of steps) {
    if (step.kind === 'auto') {
      autos++
      continue
    }
    if (autos > 0) out.push(`~${autos}`)
    autos = 0
    out.push(stepText(step))
  }
  if (autos > 0) out.push(`~${autos}`)
  return out.join(' ')
}

/** A bad word, with the word. */
export class StepSyntaxError extends Error {}

const MAX_AUTO = 1_000_000

/** Text back into steps; throws `StepSyntaxError` on a word it does not know. */
export function parseSteps(text: string): Step[] {
  const out: Step[] = []
  for (const word of text.trim().split(/\s+/)) {
    if (word === '') continue
    const run = /^~(\d+)$/.exec(word)
    if (run) {
      const count = Number(run[1])
      if (count < 1 || count > MAX_AUTO || out.length + count > MAX_AUTO)
        throw new StepSyntaxError(`${word}: at most ${MAX_AUTO} steps in all`)
      for (let i = 0; i < count; i++) out.push(AUTO)
      continue
    }
    out.push(parseWord(word))
  }
  return out
}

function parseWord(word: string): Step {
  const bad = (why: string) =>
    new StepSyntaxError(`not a lab step: ${JSON.stringify(word)} (${why})`)
  if (word === 'heal') return { kind: 'heal' }
  const colon = word.indexOf(':')
  const head = colon < 0 ? word : word.slice(0, colon)
  const rest = colon < 0 ? '' : word.slice(colon + 1)
  switch (head) {
    case 'drop':
    case 'dup':
      if (!isEventKey(rest)) throw bad('an event key must follow')
      return { kind: head, key: rest }
    case 'crash':
    case 'restart':
    case 'hold':
    case 'resume':
      if (rest === '' || /[@|,]/.test(rest)) throw bad('a node id must follow')
      return { kind: head, node: rest }
    case 'pause':
    case 'step': {
      const at = rest.lastIndexOf('@')
      const amount = Number(rest.slice(at + 1))
      if (at <= 0 || rest.slice(at + 1) === '' || !Number.isFinite(amount))
        throw bad('NODE@MS expected')
      return head === 'pause'
        ? { kind: 'pause', node: rest.slice(0, at), ms: amount }
        : { kind: 'clock', node: rest.slice(0, at), deltaMs: amount }
    }
    case 'cut':
    case 'mend': {
      const [a, b, more] = rest.split('-')
      if (!a || !b || more !== undefined) throw bad('A-B expected')
      return { kind: head, a, b }
    }
    case 'part': {
      const groups = rest.split('|').map((g) => g.split(','))
      if (rest === '' || groups.some((g) => g.some((id) => id === '')))
        throw bad('groups as 1,2|3 expected')
      return { kind: 'part', groups }
    }
  }
  if (isEventKey(word)) return { kind: 'happen', key: word }
  throw bad('unknown word')
}

/** `m:1>2#3`, `t:2#1`, `r:2#1`, `a#1` (and a copy's `+d`): the simulator's event keys. */
function isEventKey(key: string): boolean {
  return /^[mtra][:#]\S*$/.test(key)
}
