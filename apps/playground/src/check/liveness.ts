/**
 * The liveness goals' verdicts of an `sd check` run, in words: each goal with `holds`, `lasso`,
 * `not reached within the bound` or `search incomplete` (see the transport README, "Liveness"),
 * and a lasso as its prefix and loop, with the command that replays it.
 */
import type { LivenessResult } from '@sd/transport/explore'

const MEANING: Record<LivenessResult['verdict'], string> = {
  holds: 'every fair run within the bounds reaches it',
  lasso: 'a fair run never reaches it',
  'not reached within the bound':
    'no lasso, but some run stopped at a bound (time, depth, states) before reaching it',
  'search incomplete': 'no lasso among the states explored, but the search stopped early',
}

/** The command that replays `schedule` on the same spec and size. */
export function replayCommand(scenario: string, n: number, schedule: string): string {
  return `sd check ${scenario} --n ${n} --replay '${schedule}'`
}

export function livenessLines(
  results: readonly LivenessResult[],
  scenario: string,
  n: number,
): string[] {
  const lines = ["liveness (fair runs, on the stateful search's state graph):"]
  for (const goal of results) {
    const verdict = goal.verdict === 'lasso' ? 'LASSO' : goal.verdict
    const unreached = goal.unreached > 0 ? `; ${goal.unreached} states stopped at a bound` : ''
    lines.push(`  ${goal.name}: ${verdict} (${MEANING[goal.verdict]}${unreached})`)
    const lasso = goal.lasso
    if (lasso === undefined) continue
    lines.push(
      `    ${lasso.message}`,
      `    prefix: ${lasso.prefix || '(none: from the start)'}`,
      `    loop:   ${lasso.kind === 'deadlock' ? '(none: a deadlock, nothing left to happen)' : lasso.loop}`,
      `    replay: ${replayCommand(scenario, n, lasso.schedule)}`,
    )
  }
  return lines
}

/** Whether some goal has a lasso: a liveness failure, as a counterexample is a safety one. */
export function livenessFailed(results: readonly LivenessResult[] | undefined): boolean {
  return (results ?? []).some((goal) => goal.verdict === 'lasso')
}
