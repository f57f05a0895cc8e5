/**
 * The lessons of the other four worked examples (vector clocks, the token ring, Berkeley,
 * Chang-Roberts), in a module of their own so that `lesson-texts.ts` stays short. Same shape:
 * a run and its beats, in Portuguese and English.
 */
import type { LabConfig } from './config.js'
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

export const moreLessons: readonly Lesson[] = [
  {
    id: 'vector',
    title: {
      pt: 'Relógios vetoriais: causalidade, concorrência e #(e)',
      en: 'Vector clocks: causality, concurrency and #(e)',
    },
    config: run('vector', 3),
    beats: [
      {
        cue: {},
        say: {
          pt: 'Três processos, cada um com um vetor de três inteiros, todos a zero. Antes de cada evento, o processo soma 1 à sua própria posição (R1); cada mensagem leva o vetor do emissor, e quem a recebe fica com o máximo posição a posição e depois aplica R1 (R2).',
          en: 'Three processes, each with a vector of three integers, all zero. Before each event a process adds 1 to its own entry (R1); each message carries its sender’s vector, and the receiver takes the entry-wise maximum, then applies R1 (R2).',
        },
        look: {
          pt: 'Passe o rato sobre um evento: a dica mostra o seu vetor V e o seu relógio de Lamport.',
          en: 'Hover an event: the tip shows its vector V and its Lamport clock.',
        },
      },
      {
        cue: { type: 'send', node: '3', what: 'app' },
        say: {
          pt: 'O primeiro evento do 3 é um envio ao 1: o vetor [0, 0, 1] segue com a mensagem.',
          en: '3’s first event is a send to 1: the vector [0, 0, 1] travels with the message.',
        },
      },
      {
        cue: { type: 'deliver', node: '1' },
        say: {
          pt: 'O 1, que já tinha enviado ([1, 0, 0]), recebe-a: o máximo dá [1, 0, 1], e R1 dá [2, 0, 1]. O vetor diz agora que o 1 conhece um evento do 3.',
          en: '1, which had already sent ([1, 0, 0]), receives it: the maximum gives [1, 0, 1], and R1 gives [2, 0, 1]. The vector now says that 1 knows of one event of 3.',
        },
      },
      {
        cue: { t: 41, type: 'send', node: '3' },
        say: {
          pt: 'O envio do 1 aos 36 ms tem Lamport 3 e vetor [3, 0, 1]; este envio do 3 tem Lamport 4 e vetor [0, 1, 4]. Pelo relógio de Lamport 3 < 4, mas nenhum vetor é menor que o outro: os eventos são concorrentes. Só o vetor tem a condição forte: e → f se e só se V(e) < V(f).',
          en: '1’s send at 36 ms has Lamport 3 and vector [3, 0, 1]; this send of 3 has Lamport 4 and vector [0, 1, 4]. By Lamport’s clock 3 < 4, yet neither vector is below the other: the events are concurrent. Only the vector has the strong condition: e → f if and only if V(e) < V(f).',
        },
        look: {
          pt: 'A mensagem do 1 ao 3 ainda vai a caminho: o 3 ainda não sabe dela.',
          en: 'The message from 1 to 3 is still on its way: 3 does not know of it yet.',
        },
      },
      {
        cue: { t: 64, type: 'send', node: '2' },
        say: {
          pt: 'O 2 envia com [1, 6, 4]: a soma das posições menos um conta os eventos que o precedem causalmente, #(e) = 1 + 6 + 4 − 1 = 10.',
          en: '2 sends with [1, 6, 4]: the sum of the entries minus one counts the events that causally precede it, #(e) = 1 + 6 + 4 − 1 = 10.',
        },
      },
      {
        cue: { t: 100 },
        say: {
          pt: 'No fim, o cenário verifica a condição forte em todos os pares de eventos e testa cortes: um corte cuja fronteira inclui uma receção sem o seu envio é inconsistente.',
          en: 'At the end the scenario checks the strong condition on every pair of events, and tests cuts: a cut whose frontier includes a receive without its send is inconsistent.',
        },
      },
    ],
  },
  {
    id: 'token-ring',
    title: {
      pt: 'Exclusão mútua em anel (token ring)',
      en: 'Token ring mutual exclusion',
    },
    config: run('mutex-token-ring', 6),
    beats: [
      {
        cue: {},
        say: {
          pt: 'Seis processos num anel lógico, 1 a 6. O token parte do 1 e passa de vizinho em vizinho por ordem; só o 2 e o 4 querem o recurso, três vezes cada.',
          en: 'Six processes in a logical ring, 1 to 6. The token starts at 1 and goes from neighbour to neighbour in order; only 2 and 4 want the resource, three times each.',
        },
      },
      {
        cue: { type: 'send', what: 'ack' },
        say: {
          pt: 'Quem recebe o token responde ACK: o emissor fica a saber que chegou. Sem ACK, desconfia que o vizinho caiu.',
          en: 'Whoever receives the token answers ACK: the sender knows it arrived. Without an ACK it suspects the neighbour is down.',
        },
      },
      {
        cue: { type: 'emit', what: 'acquired' },
        say: {
          pt: 'O 4 quer o recurso e tem o token: entra, e guarda o token enquanto está dentro. Quem não o quer só o passa adiante.',
          en: '4 wants the resource and has the token: it enters, and keeps the token while inside. Whoever does not want it just passes it on.',
        },
        look: {
          pt: 'A faixa verde sob o 4: quem detém o recurso.',
          en: 'The green lane under 4: who holds the resource.',
        },
      },
      {
        cue: { type: 'emit', what: 'released' },
        say: {
          pt: 'O 4 sai e passa o token ao 5. Agora derrube o 5, o próximo do anel.',
          en: '4 leaves and passes the token to 5. Now crash 5, the next in the ring.',
        },
        act: 'crash:5',
      },
      {
        cue: { type: 'drop' },
        say: {
          pt: 'O token para o 5 perde-se (a cruz vermelha): nenhum ACK volta. O 4 tenta de novo depois do seu prazo.',
          en: 'The token to 5 is lost (the red cross): no ACK comes back. 4 tries again after its timeout.',
        },
      },
      {
        cue: { type: 'emit', what: 'ring-changed' },
        say: {
          pt: 'O 4 desiste do 5: retira-o do anel e passa o token ao 6. A nova composição do anel viaja com o token, e cada processo a aprende à sua vez.',
          en: '4 gives up on 5: it removes it from the ring and passes the token to 6. The new membership travels with the token, and each process learns it in turn.',
        },
      },
      {
        cue: { type: 'emit', node: '2', what: 'acquired' },
        say: {
          pt: 'O 2 volta a ter a sua vez. Um só token, um só detentor de cada vez: a exclusão mútua nunca quebra, e nenhum pedido fica por servir.',
          en: '2 gets its turn again. One token, one holder at a time: mutual exclusion never breaks, and no request is left unserved.',
        },
      },
    ],
  },
  {
    id: 'berkeley',
    title: {
      pt: 'Sincronização de relógios de Berkeley',
      en: 'Berkeley clock synchronization',
    },
    config: run('berkeley', 5),
    beats: [
      {
        cue: {},
        say: {
          pt: 'Nenhuma máquina tem um receptor de UTC. O 1 é o mestre: pergunta a hora a todos (polling) e faz a média.',
          en: 'No machine has a UTC receiver. Node 1 is the master: it asks everyone their time (polling) and averages.',
        },
      },
      {
        cue: { type: 'send', what: 'berkeley-time' },
        say: {
          pt: 'Cada um responde com a sua hora; o mestre estima-a no momento da chegada com metade da ida e volta, como no algoritmo de Cristian.',
          en: 'Each answers with its time; the master estimates it at arrival with half the round trip, as in Cristian’s algorithm.',
        },
        look: {
          pt: 'Passe o rato sobre a resposta do 5: o relógio dele está quase 5 s adiantado.',
          en: 'Hover 5’s answer: its clock is almost 5 s ahead.',
        },
      },
      {
        cue: { type: 'emit', node: '1', what: 'berkeley-round' },
        say: {
          pt: 'O mestre calcula a média só dos relógios que concordam entre si: o 5, longe demais, fica de fora da média. A cada um envia um ajuste relativo (quanto avançar ou atrasar), não a hora: um valor relativo não envelhece no caminho. O 5 também é corrigido, para trás quase 5 s.',
          en: 'The master averages only the clocks that agree with each other: 5, too far off, is left out of the average. To each it sends a relative adjustment (how much to move), not the time: a relative value does not age on the way. 5 is corrected too, back by almost 5 s.',
        },
      },
      {
        cue: { type: 'emit', node: '5', what: 'adjusted' },
        say: {
          pt: 'Os relógios não saltam para trás: o ajuste é feito aos poucos (slew), para que o tempo local nunca recue.',
          en: 'The clocks do not jump back: the adjustment is made gradually (slew), so that local time never goes backwards.',
        },
      },
      {
        cue: { t: 10_000 },
        say: {
          pt: 'A cada 10 s uma nova ronda corrige a deriva. A diferença entre os relógios cai de uns 5 s para poucos milissegundos.',
          en: 'Every 10 s a new round corrects the drift. The spread of the clocks falls from about 5 s to a few milliseconds.',
        },
      },
    ],
  },
  {
    id: 'chang-roberts',
    title: {
      pt: 'Eleição em anel de Chang e Roberts',
      en: 'Chang and Roberts ring election',
    },
    config: run('election-chang-roberts', 8),
    beats: [
      {
        cue: {},
        say: {
          pt: 'Oito processos de identificadores aleatórios num anel de sentido único: 6 → 58 → 47 → 19 → 15 → 27 → 54 → 80 → 6. Todos iniciam uma eleição, enviam o seu identificador à direita e ficam participantes.',
          en: 'Eight processes with random ids on a one-way ring: 6 → 58 → 47 → 19 → 15 → 27 → 54 → 80 → 6. All start an election, send their id to the right, and become participants.',
        },
      },
      {
        cue: { t: 1, type: 'send', what: 'election' },
        say: {
          pt: 'Quem recebe um identificador maior que o seu repassa-o; um menor, sendo já participante, engole-o. Só os maiores seguem viagem.',
          en: 'Whoever receives an id above its own forwards it; a smaller one, being a participant already, it swallows. Only the larger ones travel on.',
        },
        look: {
          pt: 'Cada vez menos setas ELECTION por passo: os identificadores pequenos morrem cedo.',
          en: 'Fewer and fewer ELECTION arrows per step: the small ids die early.',
        },
      },
      {
        cue: { type: 'emit', node: '80', what: 'leader' },
        say: {
          pt: 'O 80 recebe o seu próprio identificador de volta: é o maior do anel. Declara-se líder e envia ELECTED à volta.',
          en: '80 gets its own id back: it is the largest on the ring. It declares itself leader and sends ELECTED round.',
        },
      },
      {
        cue: { type: 'send', node: '54', what: 'elected' },
        say: {
          pt: 'ELECTED dá uma volta e todos conhecem o líder. Foram 24 mensagens ELECTION: no pior caso n(n + 1)/2 = 36, em média cerca de n·H_n ≈ 21,7.',
          en: 'ELECTED goes round once and everyone knows the leader. That took 24 ELECTION messages: n(n + 1)/2 = 36 at worst, about n·H_n ≈ 21.7 on average.',
        },
      },
    ],
  },
]
