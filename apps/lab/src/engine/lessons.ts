/**
 * Lessons: the course texts' worked examples as guided walkthroughs. A lesson opens a scenario
 * and tells its story in beats; each beat is shown from the first step at which its cue is in
 * the trace (a crash, a message of a type, an emitted event, a virtual time), in Portuguese (the
 * texts' language) or English. A beat may ask the student to act (`act`: the step its button
 * takes, "now crash 7") and says what to look for. Pure data and a pure cue finder: the page
 * shows them, the tests play them.
 */
import type { TraceEvent } from '@sd/transport'
import type { LabConfig } from './config.js'

export type Text = { pt: string; en: string }

/** When a beat begins: the first trace entry that matches (all given fields must). */
export interface Cue {
  /** Virtual time reached. */
  t?: number
  /** Entry type: `crash`, `restart`, `send`, `deliver`, `emit`... */
  type?: string
  node?: string
  /** The message's type (`send`, `deliver`) or the emitted event's type (`emit`). */
  what?: string
}

export interface Beat {
  cue: Cue
  say: Text
  /** What to look for in the drawing. */
  look?: Text
  /** The step the student is asked to take here, as its word (`crash:7`). */
  act?: string
}

export interface Lesson {
  id: string
  title: Text
  /** The run it opens (steps empty: the student makes them). */
  config: Omit<LabConfig, 'steps'>
  beats: Beat[]
}

const run = (scenario: string, n: number): Omit<LabConfig, 'steps'> => ({
  mode: 'run',
  scenario,
  n,
  seed: 1,
  crash: [],
  pause: '',
  clockStep: '',
})

/** The worked examples with a lesson so far (the texts have twelve; see the README). */
export const lessons: readonly Lesson[] = [
  {
    id: 'bully',
    title: {
      pt: 'Eleição pelo algoritmo do valentão (Garcia-Molina)',
      en: 'Election by the bully algorithm (Garcia-Molina)',
    },
    config: run('election-bully', 8),
    beats: [
      {
        cue: {},
        say: {
          pt: 'Oito processos, 0 a 7, começam e elegem o de maior identificador: o 7. Avance passo a passo (→) e veja as mensagens COORDINATOR.',
          en: 'Eight processes, 0 to 7, start and elect the highest id: 7. Step forward (→) and watch the COORDINATOR messages.',
        },
        look: {
          pt: 'A faixa roxa sob o 7: ele é o líder; as lilases, os seguidores.',
          en: 'The purple lane under 7: it leads; the lilac ones follow.',
        },
      },
      {
        cue: { t: 50 },
        say: {
          pt: 'Agora derrube o 7: o líder falha. Os batimentos (heartbeats) dele param.',
          en: 'Now crash 7: the leader fails. Its heartbeats stop.',
        },
        act: 'crash:7',
      },
      {
        cue: { type: 'send', node: '4', what: 'election' },
        say: {
          pt: 'O 4 nota a falta do líder e envia ELECTION a todos os processos maiores que ele: 5, 6 e 7.',
          en: '4 notices the leader is gone and sends ELECTION to every process above it: 5, 6 and 7.',
        },
        look: {
          pt: 'A mensagem para o 7 termina numa cruz vermelha: ele está em baixo.',
          en: 'The message to 7 ends in a red cross: it is down.',
        },
      },
      {
        cue: { type: 'send', what: 'ok' },
        say: {
          pt: 'O 5 e o 6 respondem OK ao 4 (“deixa comigo”) e fazem as suas próprias eleições.',
          en: '5 and 6 answer OK to 4 ("leave it to me") and hold their own elections.',
        },
      },
      {
        cue: { type: 'emit', node: '6', what: 'leader' },
        say: {
          pt: 'O 6 não ouve OK de ninguém maior a tempo: anuncia-se COORDINATOR, com um termo maior.',
          en: '6 hears no OK from anyone above in time: it announces itself COORDINATOR, with a higher term.',
        },
      },
      {
        cue: { type: 'restart', node: '7' },
        say: {
          pt: 'O 7 recupera. Sendo o maior, faz uma eleição e “intimida” os outros: volta a ser o líder.',
          en: '7 recovers. Being the highest, it holds an election and bullies its way back: it leads again.',
        },
        look: {
          pt: 'No fim todos seguem o 7, num termo novo; o invariante (um líder por termo) nunca quebra.',
          en: 'In the end everyone follows 7, in a new term; the invariant (one leader per term) never breaks.',
        },
      },
    ],
  },
  {
    id: 'ricart-agrawala',
    title: {
      pt: 'Exclusão mútua de Ricart-Agrawala',
      en: 'Ricart-Agrawala mutual exclusion',
    },
    config: run('mutex-ricart-agrawala', 3),
    beats: [
      {
        cue: {},
        say: {
          pt: 'Três processos querem a secção crítica. Cada um envia REQUEST, com o seu relógio de Lamport, a todos os outros.',
          en: 'Three processes want the critical section. Each sends REQUEST, stamped with its Lamport clock, to all the others.',
        },
      },
      {
        cue: { type: 'emit', what: 'deferred' },
        say: {
          pt: 'Quem pediu com um carimbo menor adia a resposta a quem pediu depois: a resposta OK só sai quando sair da secção.',
          en: 'Whoever asked with a smaller stamp defers its answer to a later asker: the OK only goes when it leaves the section.',
        },
        look: {
          pt: 'Experimente: escolha em “Pending” outra mensagem para entregar primeiro. A ordem de entrada segue os carimbos, não a chegada.',
          en: 'Try it: pick another message under "Pending" to deliver first. The order of entry follows the stamps, not arrival.',
        },
      },
      {
        cue: { type: 'emit', what: 'acquired' },
        say: {
          pt: 'Com n−1 respostas OK, entra. São 2(n−1) mensagens por entrada.',
          en: 'With n−1 OK answers it enters. That is 2(n−1) messages per entry.',
        },
        look: {
          pt: 'A faixa verde: quem detém a secção. Nunca há duas ao mesmo tempo.',
          en: 'The green lane: who holds the section. There are never two at once.',
        },
      },
      {
        cue: { type: 'emit', what: 'released' },
        say: {
          pt: 'Agora derrube o 3 enquanto espera: o algoritmo precisa da resposta de todos, e quem espera por ele fica bloqueado.',
          en: 'Now crash 3 while it waits: the algorithm needs everyone’s answer, and whoever waits for it is stuck.',
        },
        act: 'crash:3',
      },
    ],
  },
]

export function lessonOf(id: string): Lesson | undefined {
  return lessons.find((l) => l.id === id)
}

function typeOf(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null && 'type' in value
    ? String(value.type)
    : undefined
}

/** Whether the trace entry matches the cue. */
export function matches(cue: Cue, e: TraceEvent): boolean {
  if (cue.t !== undefined && e.t < cue.t) return false
  if (cue.type !== undefined && e.type !== cue.type) return false
  const node =
    'node' in e ? e.node : e.type === 'send' ? e.from : e.type === 'deliver' ? e.to : undefined
  if (cue.node !== undefined && String(node) !== cue.node) return false
  if (cue.what !== undefined) {
    const what = 'msg' in e ? typeOf(e.msg) : e.type === 'emit' ? typeOf(e.event) : undefined
    if (what !== cue.what) return false
  }
  return true
}

/** The index of the beat showing once the trace is `trace`: the last one whose cue came. */
export function beatAt(lesson: Lesson, trace: readonly TraceEvent[]): number {
  let shown = 0
  let from = 0
  for (let b = 1; b < lesson.beats.length; b++) {
    const cue = lesson.beats[b]!.cue
    let found = -1
    for (let i = from; i < trace.length; i++)
      if (matches(cue, trace[i]!)) {
        found = i
        break
      }
    if (found < 0) break
    shown = b
    from = found
  }
  return shown
}
