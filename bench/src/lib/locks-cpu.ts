/**
 * CPU time of a process the benchmark did not start as a worker of its own (the redis-server, our
 * coordinator), read from /proc/<pid>/stat: user + system time of every thread, in clock ticks
 * (usually 10 ms, so read it over a whole trial, not a moment).
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

let tickUs: number | undefined

function microsecondsPerTick(): number {
  if (tickUs === undefined) {
    const hz = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim())
    tickUs = 1e6 / (Number.isFinite(hz) && hz > 0 ? hz : 100)
  }
  return tickUs
}

/** The process's CPU time so far in µs, or undefined if it cannot be read (gone, not Linux). */
export function processCpuUs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const utime = Number(fields[11]) // field 14 of proc(5)
    const stime = Number(fields[12]) // field 15
    return (utime + stime) * microsecondsPerTick()
  } catch {
    return undefined
  }
}
