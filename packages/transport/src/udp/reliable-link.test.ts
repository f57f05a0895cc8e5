import { describe, expect, it } from 'vitest'
import { ReceiveLink, SendLink, seqDiff } from './reliable-link.js'
import { ReplayWindow } from './replay-window.js'

describe('reliable link halves', () => {
  it('compares sequence numbers across the 32-bit wrap', () => {
    expect(seqDiff(0, 0xffffffff)).toBe(1)
    expect(seqDiff(0xffffffff, 0)).toBe(-1)
    expect(seqDiff(5, 3)).toBe(2)
  })

  it('delivers in order across the wrap, buffers early ones, refuses duplicates and far-ahead ones', () => {
    const link = new ReceiveLink<number>(4)
    link.expected = 0xfffffffe
    const out: number[] = []
    const deliver = (n: number) => out.push(n)
    const skip = () => {}
    expect(link.receive(0, 0xfffffffe, 3, deliver, skip)).toBeUndefined() // early: 0 after ...fe, ...ff
    expect(link.sack()).toBe(0b10) // expected+2 buffered
    expect(link.receive(0xfffffffe, 0xfffffffe, 1, deliver, skip)).toBeUndefined()
    expect(link.receive(0xfffffffe, 0xfffffffe, 1, deliver, skip)).toBe('duplicate')
    expect(link.receive(5, 0xfffffffe, 9, deliver, skip)).toBe('out-of-window')
    expect(link.receive(0xffffffff, 0xfffffffe, 2, deliver, skip)).toBeUndefined()
    expect(out).toEqual([1, 2, 3])
    expect(link.expected).toBe(1)
    expect(link.buffered).toBe(0)
  })

  it('skips what the sender gave up on (base moves past a gap)', () => {
    const link = new ReceiveLink<string>(16)
    const out: string[] = []
    let skipped = 0
    link.receive(
      3,
      0,
      'early',
      (x) => out.push(x),
      (n) => (skipped += n),
    )
    // The sender abandoned 0..4 and now sends 5 with base 5: 'early' (seq 3) was abandoned too.
    link.receive(
      5,
      5,
      'five',
      (x) => out.push(x),
      (n) => (skipped += n),
    )
    expect(out).toEqual(['five'])
    expect(skipped).toBe(5)
  })

  it('acknowledges cumulatively and selectively, and counts what is still owed', () => {
    const link = new SendLink()
    const message = { payload: new Uint8Array(10) }
    const seg = (last: boolean) => ({
      seq: 0,
      payload: message.payload,
      frag: undefined,
      message,
      last,
      attempts: 1,
      firstSentAt: 0,
      deadline: 100,
      sacked: false,
    })
    link.enqueue(message, [seg(false), seg(true)])
    link.enqueue({ payload: new Uint8Array(5) }, [seg(true)])
    expect(link.launch(2)?.seq).toBe(0)
    expect(link.launch(2)?.seq).toBe(1)
    expect(link.launch(2)).toBeUndefined() // window of 2 is full
    expect(link.acknowledge(0, 0b1, 10)).toBe(-1) // nothing new in order; seq 1 held by the receiver
    expect(link.inFlight[1]!.sacked).toBe(true)
    expect(link.nextDeadline()).toBe(100)
    expect(link.acknowledge(2, 0, 20)).toBe(20) // an RTT sample from segments sent once
    expect(link.messages).toBe(1)
    expect(link.acknowledge(99, 0, 30)).toBe(-1) // beyond what was sent: ignored
    expect(link.abandon()).toBe(1)
  })

  it('replay window accepts each packet number once, and nothing too old', () => {
    const w = new ReplayWindow(8)
    expect(w.accept(5)).toBe(true)
    expect(w.accept(5)).toBe(false)
    expect(w.accept(3)).toBe(true)
    expect(w.accept(20)).toBe(true)
    expect(w.accept(12)).toBe(false) // 20 - 12 >= 8: too old
    expect(w.accept(13)).toBe(true)
    expect(w.accept(13)).toBe(false)
    expect(w.accept(5)).toBe(false) // fell out of the window
    expect(w.accept(19)).toBe(true)
  })
})
