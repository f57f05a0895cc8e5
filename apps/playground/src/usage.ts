import type { FaultSupport, Scenario } from './scenario.js'
import { wrapToWidth } from './width.js'

/** Bad arguments: the CLI prints the message and where to read the usage, and exits with 2. */
export class UsageError extends Error {}

/**
 * What a bad argument prints: the reason on one line, then where the usage of that command is
 * (the whole usage would bury the reason under 40 lines).
 */
export function usageErrorText(message: string, command: string | undefined): string {
  const hint =
    command === 'run'
      ? 'sd run --help (or sd run <scenario> --help)'
      : command === 'check'
        ? 'sd check --help (or sd check <scenario> --help)'
        : command === 'ntp'
          ? 'sd ntp --help'
          : 'sd --help'
  // Node's parser adds a long sentence on `--` to an unknown option: its first sentence says it.
  const reason = message.replace(/^(Unknown option '[^']*')\. To specify .*$/s, '$1')
  return `sd: ${reason}\nsee ${hint} for the usage`
}

export const USAGE = `usage:
  sd list                         list the scenarios
  sd run <scenario> [options]     run one scenario in the simulator
  sd run <scenario> --help        what the scenario does, its --n range, when --crash applies
  sd tour [--width N] [--all]     the main scenario of every package (the demo); --all: every one
  sd check <scenario> [options]   explore every message ordering of a small configuration
                                  (--n N --depth D --faults K --max-schedules M --pct RUNS
                                  --json --trace FILE)
  sd check --help                 the options of check; sd check <scenario> --help: what it explores
  sd ntp serve [options]          serve NTP (RFC 5905) from this machine's clock until Ctrl-C
  sd ntp query HOST[:PORT]        measure this clock against an NTP server ([IPv6]:PORT too)
  sd --legend                     the symbols of the diagram
  sd --version                    the version of sd

options of run:
  --n N          number of nodes (each scenario has its range)
  --seed S       integer seed, negative too (--seed -5); the same seed replays the same run (default 1);
                 a deterministic scenario (election-bully, mutex-token-ring) says it changes nothing
  --crash IDS    comma-separated distinct node ids to crash (each scenario says when); --crash none
                 runs without a scenario's default crash (mutex-centralized's coordinator)
  --pause ID@T+D pause node ID at t=T ms for D ms: it runs nothing, its messages, timers and
                 requests wait and are handled at the resume; its clocks go on (2@50+100;
                 several: 2@50+100,3@10+20); scenarios that cannot show it refuse it
  --clock-step ID@T:DELTA
                 step node ID's wall clock by DELTA ms at t=T ms (1@40:-500); its monotonic
                 clock and timers are unaffected; only scenarios that read the wall clock take it
  --json         print one JSON summary instead of the diagram
  --trace FILE   write the full trace (JSON) to FILE; --trace - writes it to stdout and sends
                 the diagram to stderr
  --rows N       rows the diagram aims for (default 400): past it, message and timer rows are
                 folded into counted gaps, rarest kinds kept; what nodes emit is always drawn
  --width N      columns the diagram fits in (default: the terminal's width, else 100); when the
                 full view does not fit, a compact one is drawn
  --legend       print the legend of the symbols under the diagram
  --proto NAME   draw only the entries of protocol NAME of a composed protocol (and crashes,
                 restarts, partitions); the trace file keeps everything

options of ntp serve:
  --host H       address to bind (default 127.0.0.1; ::1, 0.0.0.0 and :: work too)
  --port P       UDP port (default 11123, unprivileged; 123 needs root; 0 picks a free one)
  --offset MS    serve this clock plus MS milliseconds, negative too (default 0)
  --stratum S    stratum to claim, 1..15 (default 10)

options of ntp query (the port defaults to 123, where NTP servers listen):
  --samples K    valid replies to collect, 1..64; the least-delay one is shown (default 4)
  --timeout MS   give up after MS milliseconds (default 5000)
  --max-offset MS
                 refuse replies more than MS milliseconds off this clock (offset-limit; default
                 one year, none for no limit): a server decades off is a broken server
  --json         print one JSON object: offsetMs, delayMs, errorBoundMs, stratum...

exit codes:
  0  ok; also when a scenario built to show a violation (mutex-quorum) shows it, printed under
     EXPECTED VIOLATION
  1  an invariant was violated (VIOLATIONS; for mutex-quorum: its intended violation did not
     happen), a liveness check failed (LIVENESS FAILED: a request left unserved, no agreed
     leader...), the run failed or no NTP reply came
  2  bad arguments (one line saying why, and where the usage is)`

/** `sd run <scenario> --help`: the usage of run, then what this scenario is. */
export function scenarioHelp(
  scenario: Scenario,
  support: (kind: 'pause' | 'clockStep') => FaultSupport,
): string {
  const n =
    scenario.minN === scenario.maxN
      ? `--n: ${scenario.minN} nodes only`
      : `--n: ${scenario.minN}..${scenario.maxN} (default ${scenario.defaultN})`
  const first = scenario.firstId ?? 1
  const last = first === 0 ? 'n-1' : first === 1 ? 'n' : `${first}+n-1`
  const ids = scenario.randomIds
    ? 'nodes: n distinct ids drawn from the seed (--json lists them under nodes)'
    : `nodes: ${first}..${last}`
  return [
    `sd run ${scenario.name}: ${scenario.title}`,
    '',
    ...wrapToWidth(scenario.description, 100),
    '',
    n,
    ids,
    ...wrapToWidth(
      `--seed: ${scenario.deterministic ? `no effect: ${scenario.deterministic}` : 'drives the run; the same seed replays the same run'}`,
      100,
      Number.POSITIVE_INFINITY,
      98,
    ).map((line, i) => (i === 0 ? line : `  ${line}`)),
    ...wrapToWidth(
      `--crash: ${scenario.crashes ?? 'not accepted (this scenario has no failures to show)'}`,
      100,
      Number.POSITIVE_INFINITY,
      98,
    ).map((line, i) => (i === 0 ? line : `  ${line}`)),
    ...flagHelp('--pause', support('pause')),
    ...flagHelp('--clock-step', support('clockStep')),
    '',
    USAGE,
  ].join('\n')
}

function flagHelp(flag: string, support: FaultSupport): string[] {
  const text = 'accepts' in support ? support.accepts : `not accepted: ${support.refuses}`
  return wrapToWidth(`${flag}: ${text}`, 100, Number.POSITIVE_INFINITY, 98).map((line, i) =>
    i === 0 ? line : `  ${line}`,
  )
}
