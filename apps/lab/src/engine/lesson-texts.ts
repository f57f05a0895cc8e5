/**
 * The lessons' texts: each worked example's run and its beats, in Portuguese (the texts'
 * language) and English. `lessons.ts` says what a lesson is and when a beat shows.
 */
import type { LabConfig } from './config.js'
import { moreLessons } from './lesson-texts-more.js'
import type { Lesson } from './lessons.js'

const run = (scenario: string, n: number): Omit<LabConfig, 'steps'> => ({
  mode: 'run',
  scenario,
  n,
  seed: 1,
  crash: [],
  pause: '',
  clockStep: '',
})

/** The texts' twelve worked examples: these eight, then the four of `lesson-texts-more.ts`. */
const firstLessons: readonly Lesson[] = [
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
  {
    id: 'lamport',
    title: {
      pt: 'Relógios lógicos de Lamport: P, Q e R',
      en: "Lamport's logical clocks: P, Q and R",
    },
    config: run('lamport-pqr', 3),
    beats: [
      {
        cue: {},
        say: {
          pt: 'Três processos, P (1), Q (2) e R (3), com relógios lógicos. Cada evento incrementa o relógio; cada mensagem leva o relógio de quem a envia.',
          en: 'Three processes, P (1), Q (2) and R (3), with logical clocks. Each event ticks the clock; each message carries its sender’s clock.',
        },
      },
      {
        cue: { type: 'send', what: 'M1' },
        say: {
          pt: 'P envia M1 com t = 1. Ao receber, Q faz C = max(C, t) + 1.',
          en: 'P sends M1 with t = 1. On receipt Q sets C = max(C, t) + 1.',
        },
        look: {
          pt: 'Passe o rato sobre as marcas: cada uma mostra o relógio de Lamport.',
          en: 'Hover the marks: each shows its Lamport clock.',
        },
      },
      {
        cue: { type: 'send', what: 'M3' },
        say: {
          pt: 'R responde a Q com M3: o relógio de Q salta para lá do de R, e a condição do relógio mantém-se: C(envio) < C(receção).',
          en: 'R answers Q with M3: Q’s clock jumps past R’s, and the clock condition holds: C(send) < C(receive).',
        },
      },
      {
        cue: { type: 'send', what: 'M4' },
        say: {
          pt: 'Q envia M4 a P. Com os empates desfeitos pelo identificador, (T, pid) ordena todos os eventos numa ordem total.',
          en: 'Q sends M4 to P. With ties broken by the id, (T, pid) puts every event in one total order.',
        },
      },
    ],
  },
  {
    id: 'ring',
    title: {
      pt: 'Eleição em anel (Tanenbaum)',
      en: 'Ring election (Tanenbaum)',
    },
    config: run('election-ring', 8),
    beats: [
      {
        cue: {},
        say: {
          pt: 'Oito processos num anel lógico; o 7 está em baixo desde o início. O 2 e o 5 começam uma eleição ao mesmo tempo.',
          en: 'Eight processes in a logical ring; 7 is down from the start. 2 and 5 start an election at once.',
        },
      },
      {
        cue: { type: 'send', what: 'election' },
        say: {
          pt: 'A mensagem ELECTION recolhe os identificadores dos processos vivos por onde passa; cada passagem é confirmada.',
          en: 'The ELECTION message collects the ids of the live processes it passes; every pass is acknowledged.',
        },
        look: {
          pt: 'Os rótulos das setas mostram a lista a crescer: election [2,3,4].',
          en: 'The arrow labels show the list growing: election [2,3,4].',
        },
      },
      {
        cue: { type: 'emit', what: 'skipped' },
        say: {
          pt: 'O 6 não recebe confirmação do 7: salta-o e passa ao 0.',
          en: '6 gets no acknowledgement from 7: it skips it and passes on to 0.',
        },
      },
      {
        cue: { type: 'send', what: 'coordinator' },
        say: {
          pt: 'De volta ao iniciador, a lista dá o maior vivo: a mensagem passa a COORDINATOR e dá mais uma volta.',
          en: 'Back at its initiator, the list names the best live process: the message becomes COORDINATOR and goes round once more.',
        },
      },
      {
        cue: { type: 'emit', what: 'leader' },
        say: {
          pt: 'Todos ficam a conhecer o mesmo líder, o 6, no mesmo termo; as duas eleições concorrentes acabam no mesmo resultado.',
          en: 'Everyone learns the same leader, 6, in the same term; the two concurrent elections end the same way.',
        },
      },
    ],
  },
  {
    id: 'quorum',
    title: {
      pt: 'Quórum de coordenadores que esquecem: uma violação real',
      en: 'A quorum of coordinators that forget: a real violation',
    },
    config: run('mutex-quorum', 7),
    beats: [
      {
        cue: {},
        say: {
          pt: 'Os nós 1 a 5 são coordenadores; um cliente precisa de 3 autorizações (m = 3). O 6 e o 7 são clientes.',
          en: 'Nodes 1 to 5 are coordinators; a client needs 3 grants (m = 3). 6 and 7 are clients.',
        },
      },
      {
        cue: { type: 'emit', node: '6', what: 'acquired' },
        say: {
          pt: 'O 6 entra com as autorizações de 1, 2 e 3.',
          en: '6 enters with the grants of 1, 2 and 3.',
        },
      },
      {
        cue: { type: 'crash', node: '3' },
        say: {
          pt: 'O 3 falha e recupera: guardava a autorização só em memória, e esqueceu-a.',
          en: '3 crashes and restarts: it kept its grant in memory only, and forgot it.',
        },
      },
      {
        cue: { type: 'emit', node: '7', what: 'acquired' },
        say: {
          pt: 'O 7 junta 3, 4 e 5 e entra enquanto o 6 ainda lá está. O invariante quebra: veja a marca vermelha e “first broken at step”.',
          en: '7 collects 3, 4 and 5 and enters while 6 is still inside. The invariant breaks: see the red mark and "first broken at step".',
        },
        look: {
          pt: 'Duas faixas verdes ao mesmo tempo: dois processos na secção crítica.',
          en: 'Two green lanes at once: two processes in the critical section.',
        },
      },
    ],
  },
  {
    id: 'cmh',
    title: {
      pt: 'Deteção de impasses de Chandy-Misra-Haas',
      en: 'Chandy-Misra-Haas deadlock detection',
    },
    config: run('deadlock-cmh', 4),
    beats: [
      {
        cue: {},
        say: {
          pt: 'Quatro sítios; o processo i tem o recurso r<i> e pede r<i+1>: as esperas 1 → 2 → 3 → 4 → 1 atravessam todos os sítios, um ciclo que nenhum vê sozinho.',
          en: 'Four sites; process i holds r<i> and asks for r<i+1>: the waits 1 → 2 → 3 → 4 → 1 cross every site, a cycle no site sees alone.',
        },
      },
      {
        cue: { type: 'emit', what: 'waits-for' },
        say: {
          pt: 'Um processo bloqueia: fica à espera de quem detém o recurso.',
          en: 'A process blocks: it waits for whoever holds the resource.',
        },
      },
      {
        cue: { type: 'send', what: 'probe' },
        say: {
          pt: 'Quem bloqueia envia a sonda (i, i, k) ao detentor k; um bloqueado reencaminha (i, k, m) a quem espera.',
          en: 'A blocked process sends probe (i, i, k) to the holder k; a blocked receiver forwards (i, k, m) to the one it waits for.',
        },
        look: {
          pt: 'Os rótulos das setas: probe (i,j,k).',
          en: 'The arrow labels: probe (i,j,k).',
        },
      },
      {
        cue: { type: 'emit', what: 'deadlock' },
        say: {
          pt: 'A sonda volta ao seu iniciador: há impasse.',
          en: 'The probe comes back to its initiator: deadlock.',
        },
      },
      {
        cue: { type: 'emit', what: 'finished' },
        say: {
          pt: 'O processo mais novo do ciclo, o 4, foi abortado como vítima e libertou o que detinha: os outros avançam e acabam.',
          en: 'The youngest process of the cycle, 4, was aborted as the victim and freed what it held: the others go on and finish.',
        },
      },
    ],
  },
  {
    id: 'make',
    title: {
      pt: 'O make e um relógio atrasado: ordem de Lamport',
      en: 'make and a clock that is behind: Lamport order',
    },
    config: run('make', 3),
    beats: [
      {
        cue: {},
        say: {
          pt: 'Três máquinas partilham um servidor de ficheiros (1); o 2 compila, o 3 edita com o relógio 12 ms atrasado.',
          en: 'Three machines share a file server (1); 2 compiles, 3 edits with a clock 12 ms behind.',
        },
      },
      {
        cue: { type: 'send', node: '2', what: 'write' },
        say: {
          pt: 'O 2 compila e escreve os .o, carimbados com a hora local (mtime) e com um relógio de Lamport.',
          en: '2 compiles and writes the .o files, stamped with its local time (mtime) and with a Lamport clock.',
        },
      },
      {
        cue: { type: 'send', node: '3', what: 'write' },
        say: {
          pt: 'O 3 edita output.c depois da compilação, mas o relógio atrasado dá-lhe uma hora anterior à do output.o.',
          en: '3 edits output.c after the compilation, but its slow clock gives it a time earlier than output.o’s.',
        },
        look: {
          pt: 'Passe o rato sobre a mensagem write do 3: mtime menor, carimbo de Lamport maior.',
          en: 'Hover 3’s write message: a smaller mtime, a larger Lamport stamp.',
        },
      },
      {
        cue: { type: 'send', what: 'stats' },
        say: {
          pt: 'O make pela hora de modificação salta output.c; pelos carimbos de Lamport, recompila-o: a ordem certa.',
          en: 'make by modification time skips output.c; by the Lamport stamps it recompiles it: the right order.',
        },
      },
    ],
  },
  {
    id: 'cristian',
    title: {
      pt: 'Sincronização de relógios de Cristian',
      en: 'Cristian’s clock synchronization',
    },
    config: run('cristian', 5),
    beats: [
      {
        cue: {},
        say: {
          pt: 'O 1 é o servidor de tempo. Os relógios dos outros começam até ±200 ms desviados e derivam.',
          en: 'Node 1 is the time server. The others’ clocks start up to ±200 ms off, and drift.',
        },
      },
      {
        cue: { type: 'send', what: 'time-request' },
        say: {
          pt: 'Cada cliente pergunta a hora (T0) e recebe C_utc; na chegada (T1) estima T = C_utc + (T1 − T0 − I) / 2.',
          en: 'Each client asks the time (T0) and gets C_utc back; on arrival (T1) it takes T = C_utc + (T1 − T0 − I) / 2.',
        },
        look: {
          pt: 'As setas de ida e volta têm comprimentos diferentes: os atrasos são assimétricos, e metade da ida e volta é uma estimativa enviesada.',
          en: 'The way there and the way back differ in length: delays are asymmetric, and half the round trip is a biased guess.',
        },
      },
      {
        cue: { type: 'emit', what: 'adjusted' },
        say: {
          pt: 'Com a resposta de menor ida e volta, o cliente corrige o relógio de software aos poucos (slew), com um limite de erro.',
          en: 'With the answer of least round trip, the client corrects its software clock gradually (slew), with an error bound.',
        },
      },
      {
        cue: { t: 2000 },
        say: {
          pt: 'A cada 2 s uma nova ronda: a deriva desde a última é corrigida.',
          en: 'Every 2 s a new round: the drift since the last one is corrected.',
        },
      },
    ],
  },
]

export const lessons: readonly Lesson[] = [...firstLessons, ...moreLessons]
