import { describe, expect, it } from 'vitest'
import { judgeTrial, type VerdictLine, verdictLines } from '../src/lib/detector-real-judge.js'

// Three processes, one setting; the steady window 1000-2000, process 2 killed at 2000.
const plan = { n: 3, settings: 1, steady: { from: 1000, to: 2000 }, victim: 2, killAt: 2000 }
const v = (t: number, o: number, x: number, on = true): VerdictLine => ({ t, s: 0, o, x, on })

describe('judging a real-process detector trial from its verdict lines', () => {
  it('detection is when the last live observer holds the verdict on the killed process', () => {
    const [r] = judgeTrial([v(2600, 1, 2), v(2450, 0, 2)], plan)
    expect(r!.detectionMs).toBe(600)
    expect(r!.episodes).toBe(0)
  })

  it('a verdict withdrawn before the last observer agrees does not count as detected then', () => {
    const lines = [v(2300, 0, 2), v(2400, 0, 2, false), v(2500, 1, 2), v(2700, 0, 2)]
    expect(judgeTrial(lines, plan)[0]!.detectionMs).toBe(700)
  })

  it('never detected: undefined, not a number', () => {
    expect(judgeTrial([v(2300, 0, 2)], plan)[0]!.detectionMs).toBeUndefined()
  })

  it('false positives: one episode per live target going from no holder to one, in the window only', () => {
    const lines = [
      v(500, 0, 1), // before the window: held, not counted
      v(600, 0, 1, false),
      v(1100, 0, 1), // an episode
      v(1150, 2, 1), // a second holder: the same episode, one more verdict
      v(1200, 0, 1, false),
      v(1200, 2, 1, false),
      v(1500, 1, 0), // another episode
      v(2500, 0, 1), // after the kill: outside the window
    ]
    const [r] = judgeTrial(lines, plan)
    expect(r!.episodes).toBe(2)
    expect(r!.verdicts).toBe(3)
  })

  it('the killed process says nothing after its kill, and its own verdicts stop counting', () => {
    // Process 2 held a verdict on 0 before the kill: 0 is not thereby suspected by "everyone".
    const lines = [v(1900, 2, 0), v(2100, 1, 2), v(2200, 0, 2)]
    const [r] = judgeTrial(lines, plan)
    expect(r!.detectionMs).toBe(200)
    expect(r!.episodes).toBe(1)
  })

  it('reads JSON lines and skips the rest', () => {
    const lines = ['READY', '{"t":1,"s":0,"o":1,"x":2,"on":true}', 'PAUSE 120']
    expect(verdictLines(lines)).toEqual([{ t: 1, s: 0, o: 1, x: 2, on: true }])
  })
})
