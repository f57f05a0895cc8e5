import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { type Playback, START } from '../src/playback.js'
import { Player } from '../src/player.js'

/** A stand-in for the play button: the player only writes its text and `aria-pressed`. */
function fakeButton() {
  const attrs = new Map<string, string>()
  return {
    textContent: '',
    setAttribute: (k: string, v: string) => attrs.set(k, v),
    pressed: () => attrs.get('aria-pressed'),
  }
}

/** A run of seqs 0..9 stopping at 2, 5, 7; `shown` records every position the page was asked to show. */
function setup(now = 9) {
  const p: Playback = { now, end: 9, stops: [2, 5, 7] }
  const shown: number[] = []
  const button = fakeButton()
  const player = new Player(button as unknown as HTMLButtonElement, () => 4, {
    playback: () => p,
    show: (n) => {
      p.now = Math.max(START, Math.min(p.end, n))
      shown.push(p.now)
    },
  })
  return { p, shown, button, player }
}

describe('the player', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('plays from the start when all is shown, step by step, and stops at the end', () => {
    const { shown, button, player } = setup()
    player.toggle()
    expect(player.playing).toBe(true)
    expect(button.pressed()).toBe('true')
    expect(button.textContent).toContain('Pause')
    vi.advanceTimersByTime(250 * 10)
    expect(shown).toEqual([START, 2, 5, 9, 9])
    expect(player.playing).toBe(false)
    expect(button.pressed()).toBe('false')
  })

  it('pauses on a second press, and resumes from where it paused', () => {
    const { p, shown, player } = setup(START)
    player.toggle()
    vi.advanceTimersByTime(250)
    player.toggle()
    expect(player.playing).toBe(false)
    expect(p.now).toBe(2)
    vi.advanceTimersByTime(250 * 4)
    expect(shown).toEqual([2])
    player.toggle()
    vi.advanceTimersByTime(250)
    expect(p.now).toBe(5)
    player.stop()
  })

  it('each control stops playing and moves as playback says', () => {
    const { p, player } = setup(START)
    player.toggle()
    player.toEnd()
    expect(player.playing).toBe(false)
    expect(p.now).toBe(9)
    player.back()
    expect(p.now).toBe(7)
    player.scrub(1)
    expect(p.now).toBe(2)
    player.step()
    expect(p.now).toBe(5)
    player.toStart()
    expect(p.now).toBe(START)
  })

  it('a new speed restarts the timer only while playing', () => {
    const { shown, player } = setup(START)
    player.speedChanged()
    expect(player.playing).toBe(false)
    player.toggle()
    player.speedChanged()
    expect(player.playing).toBe(true)
    vi.advanceTimersByTime(250)
    expect(shown).toEqual([2])
    player.stop()
  })
})
