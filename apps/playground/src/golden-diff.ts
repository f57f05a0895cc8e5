/**
 * The first differences between a stored golden trace and a run, unified-style (`-` stored,
 * `+` now), short enough to read in a test failure: the first hunks, up to a budget of changed
 * lines. Once events shift in time every later line differs, and the first lines are the ones
 * that explain the change.
 */
import { type DiffOp, diffLines } from './line-diff.js'

export interface DiffOptions {
  /** Unchanged lines shown before and after each change. */
  context?: number
  /** Changed lines (`-` and `+`) shown at most, over all hunks. */
  maxLines?: number
}

/**
 * Undefined when the texts are equal. Hunk headers number lines from 1 (`@@ -56,9 +56,9 @@`).
 * The `end` line, whose hash changes with any event, is shown on its own after the hunks.
 */
export function firstDifference(
  expected: string,
  actual: string,
  { context = 3, maxLines = 24 }: DiffOptions = {},
): string | undefined {
  if (expected === actual) return undefined
  const [bodyBefore, endBefore] = splitEnd(splitLines(expected))
  const [bodyAfter, endAfter] = splitEnd(splitLines(actual))
  const ops = diffLines(bodyBefore, bodyAfter)
  const out: string[] = []
  let budget = maxLines
  let hidden = 0
  for (const hunk of hunks(ops, context)) {
    const changed = hunk.ops.filter((op) => op.kind !== ' ').length
    if (budget <= 0) {
      hidden += changed
      continue
    }
    out.push(hunk.header)
    for (const op of hunk.ops) {
      if (op.kind !== ' ' && budget-- <= 0) {
        hidden++
        continue
      }
      out.push(`${op.kind} ${op.line}`)
    }
  }
  if (hidden > 0) out.push(`… ${hidden} more changed lines not shown`)
  if (endBefore !== endAfter) {
    out.push('@@ end line @@')
    if (endBefore !== undefined) out.push(`- ${endBefore}`)
    if (endAfter !== undefined) out.push(`+ ${endAfter}`)
  }
  return out.join('\n')
}

interface Hunk {
  header: string
  ops: DiffOp[]
}

/** Changes with `context` kept lines around them; changes closer than 2 x context share a hunk. */
function hunks(ops: readonly DiffOp[], context: number): Hunk[] {
  const changed = ops.flatMap((op, i) => (op.kind === ' ' ? [] : [i]))
  const out: Hunk[] = []
  let i = 0
  while (i < changed.length) {
    const first = changed[i]!
    let last = first
    while (i + 1 < changed.length && changed[i + 1]! - last <= 2 * context + 1) last = changed[++i]!
    i++
    const from = Math.max(0, first - context)
    const to = Math.min(ops.length, last + context + 1)
    out.push({ header: header(ops, from, to), ops: ops.slice(from, to) })
  }
  return out
}

/** `@@ -a,b +c,d @@`: where the hunk starts in each text (from 1) and how many lines it spans. */
function header(ops: readonly DiffOp[], from: number, to: number): string {
  const before = (op: DiffOp) => op.kind !== '+'
  const after = (op: DiffOp) => op.kind !== '-'
  const startBefore = ops.slice(0, from).filter(before).length + 1
  const startAfter = ops.slice(0, from).filter(after).length + 1
  const span = ops.slice(from, to)
  return `@@ -${startBefore},${span.filter(before).length} +${startAfter},${span.filter(after).length} @@`
}

function splitLines(text: string): string[] {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  return lines
}

/** The body, and the `end ...` line if the text ends with one. */
function splitEnd(lines: string[]): [string[], string | undefined] {
  const last = lines.at(-1)
  return last?.startsWith('end ') ? [lines.slice(0, -1), last] : [lines, undefined]
}

/** How to rewrite every golden trace, after reading what changed. */
export const REWRITE_COMMAND =
  'SD_UPDATE_GOLDEN=1 pnpm --filter @sd/playground exec vitest run src/golden.test.ts'

/**
 * Why a run does not match its stored file (`stored` undefined: no file), as a test failure
 * says it; undefined when it matches.
 */
export function goldenMismatch(
  file: string,
  stored: string | undefined,
  actual: string,
): string | undefined {
  if (stored === undefined)
    return `testdata/${file} does not exist: create it with\n  ${REWRITE_COMMAND}\nthen read it and commit it`
  const diff = firstDifference(stored, actual)
  if (diff === undefined) return undefined
  return [
    `testdata/${file} differs from this run (- stored, + now): a protocol's behaviour changed`,
    diff,
    'If every changed line is explained by an intended change, rewrite the files and commit them:',
    `  ${REWRITE_COMMAND}`,
  ].join('\n')
}
