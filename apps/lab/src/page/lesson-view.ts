/// <reference lib="dom" />
/**
 * The lesson panel: the beat showing (its narration in the language chosen, what to look for),
 * the moment to act (a button with the step, shown until the step is taken) and a button that
 * plays on to the next beat.
 */
import type { LabRun } from '../engine/lab-run.js'
import { beatAt, beatOf, lessonOf } from '../engine/lessons.js'
import { stepText } from '../engine/steps.js'

/** Shows the lesson of the run's config in `ui.section` (hidden without one). */
export function renderLesson(
  r: LabRun,
  lang: 'pt' | 'en',
  ui: { section: HTMLElement; box: HTMLElement },
  act: (change: () => void, what: string) => void,
  maxSteps: number,
): void {
  const { section, box } = ui
  const lesson = r.config.lesson ? lessonOf(r.config.lesson) : undefined
  section.hidden = lesson === undefined
  if (!lesson) return
  const { beat: b, at } = beatOf(lesson, r.traceAt())
  const beat = lesson.beats[b]!
  box.replaceChildren()
  const title = document.createElement('h3')
  title.textContent = lesson.title[lang]
  const say = document.createElement('p')
  say.id = 'say'
  say.dataset.beat = String(b)
  say.textContent = beat.say[lang]
  box.append(title, say)
  if (beat.look) {
    const look = document.createElement('p')
    look.className = 'look'
    look.textContent = `👁 ${beat.look[lang]}`
    box.append(look)
  }
  const acted = beat.act === undefined || actedSince(r, at, beat.act)
  if (!acted && r.atLive) {
    const doIt = document.createElement('button')
    doIt.type = 'button'
    doIt.dataset.step = beat.act!
    doIt.id = 'lesson-act'
    doIt.textContent = lang === 'pt' ? `Fazer: ${beat.act}` : `Do it: ${beat.act}`
    box.append(doIt)
  }
  const progress = document.createElement('p')
  progress.className = 'hint'
  progress.textContent = `${b + 1} / ${lesson.beats.length} `
  if (b + 1 < lesson.beats.length && acted) {
    const next = document.createElement('button')
    next.type = 'button'
    next.id = 'next-beat'
    next.textContent = lang === 'pt' ? 'Até ao próximo passo ▶' : 'On to the next beat ▶'
    next.onclick = () =>
      act(() => {
        for (let i = 0; i < maxSteps && beatAt(lesson, r.traceAt()) === b; i++)
          if (!r.forward()) break
      }, 'next beat')
    progress.append(next)
  }
  box.append(progress)
}

/** Whether `act` was taken at a step after the trace entry `cue` (the beat asked once). */
function actedSince(r: LabRun, cue: number, act: string): boolean {
  for (let p = r.position; p > 0 && r.frameAt(p - 1).trace > cue; p--) {
    const step = r.stepAt(p - 1)
    if (step && stepText(step) === act) return true
  }
  return false
}
