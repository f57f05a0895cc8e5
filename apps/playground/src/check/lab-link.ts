/**
 * The lab's address of a counterexample, relative to the lab's page (`pnpm lab` serves it on
 * 127.0.0.1:5200): opened there, the check's scenario at that n replays the shrunk schedule, and
 * the lab marks the step that breaks the invariant. The lab reads `schedule=` as the steps of a
 * check-mode run; the words are `sd check`'s own, so the schedule goes in as printed, escaped.
 */
export function labLink(scenario: string, n: number, schedule: string): string {
  const q = new URLSearchParams({ scenario, n: String(n), schedule })
  return `?${q.toString()}`
}
