import { existsSync, readFileSync } from 'node:fs'
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { createParser } from 'eventsource-parser'
import { json, publishBody } from './catalog.js'
import { type Server, statusBytes } from './children.js'
import { createPublisher, startService } from './service.js'
import { quantile } from './stats.js'

const BEE_ID = 'bench-stream'
/** The streams held open at once, and the place of each among the service's (STREAM_MAX_OPEN, 1,000 by default). */
export const OPEN_STREAMS = 1000
const STREAM_MAX_OPEN = OPEN_STREAMS * 2
/** Each stream's upstream sends one event this often, each stream at its own phase: 1,000 events/s in all, spread. */
const EVENT_EVERY_MS = 1000
/** How long the events are timed once every stream is open. */
const MEASURE_MS = 15_000
/** Opened this many at a time, within the listen backlog. */
const OPEN_BATCH = 100
/** File descriptors the bench needs: each stream is two sockets here (client, upstream) and two in the service. */
const FDS_NEEDED = OPEN_STREAMS * 2 + 256
const PROBE = fileURLToPath(new URL('./memory-probe.mjs', import.meta.url))
const eventSchema = { type: 'object', properties: { sentAt: { type: 'number', description: 'When the upstream sent it (ms since the epoch).' } }, required: ['sentAt'] }

/** The clock the upstream stamps with and the clients read: both in this process, so one clock. */
const now = () => performance.timeOrigin + performance.now()

export interface OpenStreamsFigures {
  count: number
  /** VmRSS after a full GC, with no stream open, then with every stream open. */
  rssBeforeBytes: number
  rssOpenBytes: number
  /** Events received while timed, and what the relay added to each (arrival − the upstream's stamp): p50, p99, max ms. */
  events: number
  addedMs: Latency
  /** The same clients on the upstream itself, no Apiary between: what the bench's own process adds. */
  directMs: Latency
  /** What went wrong: a stream refused or ended early, an upstream left open after its client went. */
  problems: string[]
}

interface Latency { p50: number, p99: number, max: number }

/** One client's stream: its first event in, whether it ended, and closing it. */
interface StreamClient { firstEvent: Promise<void>, ended: () => boolean, close: () => void }

const latencyOf = (samples: number[]): Latency => ({ p50: quantile(samples, 0.5), p99: quantile(samples, 0.99), max: quantile(samples, 1) })

/** OPEN_STREAMS clients of `url`, opened OPEN_BATCH at a time, each with its first event in. */
async function openAll (url: string, added: number[], timing: () => boolean): Promise<StreamClient[]> {
  const streams: StreamClient[] = []
  for (let i = 0; i < OPEN_STREAMS; i += OPEN_BATCH) {
    streams.push(...await Promise.all(Array.from({ length: Math.min(OPEN_BATCH, OPEN_STREAMS - i) }, async () => await openStream(url, added, timing))))
  }
  await Promise.all(streams.map(async (one) => await one.firstEvent))
  return streams
}

/** The latency of OPEN_STREAMS clients straight on the upstream, timed MEASURE_MS: the bench's own share of the figure. */
async function directLatency (upstreamUrl: string): Promise<Latency> {
  const samples: number[] = []
  let timing = false
  const streams = await openAll(upstreamUrl, samples, () => timing)
  timing = true
  await sleep(MEASURE_MS)
  timing = false
  for (const one of streams) one.close()
  return latencyOf(samples)
}

/** A stream Bee's upstream on 127.0.0.1 that never ends a stream: each sends a stamped data event every EVENT_EVERY_MS. */
async function startStampingUpstream () {
  const open = new Set<ServerResponse>()
  const server = createServer((incoming, response) => {
    incoming.resume()
    incoming.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      response.flushHeaders()
      open.add(response)
      const send = () => { response.write(`event: data\ndata: {"sentAt":${now()}}\n\n`) }
      let ticking: NodeJS.Timeout | undefined
      const first = setTimeout(() => { send(); ticking = setInterval(send, EVENT_EVERY_MS) }, Math.random() * EVENT_EVERY_MS)
      response.on('close', () => {
        clearTimeout(first)
        clearInterval(ticking)
        open.delete(response)
      })
    })
  })
  server.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`,
    open,
    close: async () => {
      for (const response of open) response.destroy()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}

/** A client of the stream: each data event's added latency goes to `added` while `timing` says so. */
async function openStream (url: string, added: number[], timing: () => boolean): Promise<StreamClient> {
  const body = '{"text":"buzz"}'
  const call = request(url, { method: 'POST', agent: false, headers: { accept: 'text/event-stream', 'content-type': 'application/json', 'content-length': body.length } })
  call.end(body)
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    call.once('response', resolve)
    call.once('error', reject)
  })
  if (response.statusCode !== 200) throw new Error(`a stream's call answered ${response.statusCode ?? 0}`)
  let first = () => {}
  const firstEvent = new Promise<void>((resolve) => { first = resolve })
  const parser = createParser({
    onEvent: (event) => {
      if (event.event !== 'data') return
      first()
      if (timing()) added.push(now() - (JSON.parse(event.data) as { sentAt: number }).sentAt)
    }
  })
  response.setEncoding('utf8')
  response.on('data', (text: string) => { parser.feed(text) })
  let ended = false
  response.once('close', () => { ended = true })
  return { firstEvent, ended: () => ended, close: () => { call.destroy() } }
}

/** This process's limit of open files (the service inherits it): /proc/self/limits' soft limit; Infinity without /proc. */
function openFilesLimit (): number {
  try {
    const soft = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1]
    return soft === undefined || soft === 'unlimited' ? Infinity : Number(soft)
  } catch {
    return Infinity
  }
}

/** VmRSS of the service after a full GC (its probe, bench/memory-probe.mjs, runs one on SIGWINCH). */
async function rssAfterGc (service: Server, dir: string, probe: number): Promise<number> {
  process.kill(service.pid, 'SIGWINCH')
  while (!existsSync(join(dir, `probe-${probe}.json`))) await sleep(50)
  await sleep(100)
  return statusBytes(service.pid, 'VmRSS') ?? NaN
}

/**
 * Issue 45's open streams: a free stream Bee on a stamping upstream, OPEN_STREAMS clients holding its stream open at
 * once on one instance (STREAM_MAX_OPEN raised above them); the service's RSS per open stream, and the latency the
 * relay adds to each event (the upstream's stamp to the client's arrival, both on this process's clock).
 */
export async function openStreamsBench (dir: string): Promise<OpenStreamsFigures> {
  const limit = openFilesLimit()
  if (limit < FDS_NEEDED) throw new Error(`${OPEN_STREAMS} open streams need ${FDS_NEEDED} file descriptors here and in the service; ulimit -n is ${limit}: raise it`)
  const upstream = await startStampingUpstream()
  const service = await startService({
    name: 'streams',
    databaseUrl: join(dir, 'streams.db'),
    dir,
    env: { EGRESS_ALLOWLIST: '127.0.0.1', STREAM_MAX_OPEN: String(STREAM_MAX_OPEN), MEMORY_PROBE_DIR: dir },
    nodeFlags: ['--expose-gc', `--import=${PROBE}`]
  })
  const problems: string[] = []
  const streams: StreamClient[] = []
  try {
    const { key } = await createPublisher(service.url, 'streams')
    const published = await fetch(`${service.url}/api/bees`, json(key, 'POST', {
      ...publishBody(BEE_ID, 0, upstream.url),
      config: { primaryServices: ['bench'], executionMode: 'stream', eventSchema, maxRunSeconds: 900 }
    }))
    if (published.status !== 201) throw new Error(`publishing the stream Bee answered ${published.status}: ${await published.text()}`)
    const url = `${service.url}/api/bees/${BEE_ID}/execute`
    const added: number[] = []
    let timing = false

    // Warm-up: the stream's code loaded and its first allocations made before the baseline is read.
    const warm = await Promise.all(Array.from({ length: 20 }, async () => await openStream(url, added, () => false)))
    await Promise.all(warm.map(async (one) => await one.firstEvent))
    for (const one of warm) one.close()
    while (upstream.open.size > 0) await sleep(50)
    await sleep(500)
    const rssBeforeBytes = await rssAfterGc(service, dir, 0)

    console.error(`… opening ${OPEN_STREAMS} streams`)
    streams.push(...await openAll(url, added, () => timing))
    console.error(`… ${OPEN_STREAMS} open; timing events for ${MEASURE_MS / 1000} s`)
    timing = true
    await sleep(MEASURE_MS)
    timing = false
    const rssOpenBytes = await rssAfterGc(service, dir, 1)
    if (upstream.open.size !== OPEN_STREAMS) problems.push(`${upstream.open.size} upstream streams open for ${OPEN_STREAMS} clients`)

    const endedEarly = streams.filter((one) => one.ended()).length
    if (endedEarly > 0) problems.push(`${endedEarly} streams ended while timed`)
    for (const one of streams) one.close()
    const started = performance.now()
    while (upstream.open.size > 0 && performance.now() - started < 5000) await sleep(50)
    if (upstream.open.size > 0) problems.push(`${upstream.open.size} upstream streams still open 5 s after their clients went`)
    const expected = OPEN_STREAMS * MEASURE_MS / EVENT_EVERY_MS
    if (added.length < expected * 0.9) problems.push(`${added.length} events timed of about ${expected}`)
    console.error(`… the same ${OPEN_STREAMS} clients straight on the upstream, for ${MEASURE_MS / 1000} s`)
    const directMs = await directLatency(upstream.url)
    return { count: OPEN_STREAMS, rssBeforeBytes, rssOpenBytes, events: added.length, addedMs: latencyOf(added), directMs, problems }
  } finally {
    for (const one of streams) one.close()
    await service.stop()
    await upstream.close()
  }
}

/** The open streams' subsection of the runs section in bench/RESULTS.md. */
export const STREAMS_HEADING = '### Open streams of a stream Bee'
/** Issue 45's goal for the memory of one open stream. */
const PER_STREAM_TARGET_BYTES = 100 * 1024

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`

/** The subsection's Markdown: how it was measured, the figures, and any problem. */
export function streamsSection (figures: OpenStreamsFigures, load: string): string {
  const { count, rssBeforeBytes, rssOpenBytes, events, addedMs, directMs, problems } = figures
  const latency = ({ p50, p99, max }: Latency) => `${p50.toFixed(1)} / ${p99.toFixed(1)} (${max.toFixed(1)}) ms`
  const perStream = (rssOpenBytes - rssBeforeBytes) / count
  return [
    STREAMS_HEADING,
    '',
    `- Date: ${new Date().toISOString()}; load average ${load} (1 / 5 / 15 min; other work on the machine included)`,
    `- ${count.toLocaleString('en')} clients (one process, the bench's) each hold a free stream Bee's call open with \`Accept: text/event-stream\` ` +
      `on one instance (STREAM_MAX_OPEN ${STREAM_MAX_OPEN}); its upstream (127.0.0.1, in the bench's process) never ends a stream and sends ` +
      `each one a data event every ${EVENT_EVERY_MS} ms at its own phase, stamped with its send time. RSS is VmRSS after a full GC ` +
      '(bench/memory-probe.mjs), after 20 streams opened and closed, then with all open. Added latency: the client\'s arrival time minus the ' +
      `upstream's stamp (one clock: both in the bench's process), every event of ${MEASURE_MS / 1000} s once all were open; then the same ` +
      'clients on the upstream itself, as a baseline.',
    '',
    '| Measure | Target | Value |',
    '|---|---|---|',
    `| RSS per open stream ((RSS with ${count.toLocaleString('en')} open − before) / ${count.toLocaleString('en')}) | < ${kb(PER_STREAM_TARGET_BYTES)} | ` +
      `${kb(perStream)} (${mb(rssBeforeBytes)} → ${mb(rssOpenBytes)}) ${perStream < PER_STREAM_TARGET_BYTES ? 'met' : '**missed**'} |`,
    `| Event relay: latency added to the upstream's, p50 / p99 (max) over ${events.toLocaleString('en')} events | – | ${latency(addedMs)} |`,
    `| The same clients straight on the upstream (the bench's own share), p50 / p99 (max) | – | ${latency(directMs)} |`,
    ...(problems.length === 0 ? [] : ['', '#### Problems (figures affected are not meaningful)', '', ...problems.map((problem) => `- ${problem}`)])
  ].join('\n') + '\n'
}
