/**
 * The lock-family client loop: acquire, a tiny critical section, release, a bounded number of
 * times, recording every acquire's latency and every critical section's enter and leave on the
 * machine's monotonic clock (which every process shares), for the correctness check.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { FamilyLoopReport, FamilyRunSpec } from './locks-protocol.js'
import type { Locker } from './mutex-locker.js'
import { nowMs } from './mutex-protocol.js'

const us = (ms: number) => Math.round(ms * 1000)

export async function familyLoop(locker: Locker, run: FamilyRunSpec): Promise<FamilyLoopReport> {
  const latenciesUs: number[] = []
  const spans: number[] = []
  await sleep(Math.max(0, run.startAt - nowMs()))
  const cpuBefore = process.cpuUsage()
  const statsBefore = locker.stats?.()
  const report = (error?: string): FamilyLoopReport => {
    const cpu = process.cpuUsage(cpuBefore)
    const after = locker.stats?.()
    return {
      ops: latenciesUs.length,
      latenciesUs,
      spans,
      finishedUs: us(nowMs()),
      cpuUs: cpu.user + cpu.system,
      ...(locker.granted ? { granted: locker.granted() } : {}),
      ...(statsBefore && after
        ? {
            datagrams: {
              sent: after.datagramsSent - statsBefore.datagramsSent,
              acks: after.acksSent - statsBefore.acksSent,
              received: (after.datagramsReceived ?? 0) - (statsBefore.datagramsReceived ?? 0),
            },
          }
        : {}),
      ...(error ? { error } : {}),
    }
  }
  try {
    for (let op = 0; op < run.ops; op++) {
      const asked = nowMs()
      await locker.acquire(run.deadline)
      // Enter is read after the acquire resolved and leave before the release is sent, so each
      // recorded [enter, leave] lies inside the real holding: an overlap between two recorded
      // sections is an overlap of the real ones (no false alarm).
      const enter = nowMs()
      latenciesUs.push(us(enter - asked))
      let leave = enter
      while (leave - enter < run.csUs / 1000) leave = nowMs()
      spans.push(us(enter), us(leave))
      await locker.release(run.deadline)
    }
    return report()
  } catch (e) {
    return report(String(e))
  }
}
