// The floor for discovery, detail and execute: node:http sending the exact answer Apiary sent (its status, every
// header it wrote, in order, and its body) with no framework. Plain .mjs so it runs under `node` without a TypeScript loader.
//
// With RUN_BEES=1 it is the ceiling of the execute rows instead: before it sends an execute answer it reads the
// request body, parses it and runs the Bee's own function on it (the built summarizer or sentiment analysis, from
// dist/), the work an execute row does that the plain floor does not, with no framework, validation, ledger or log.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { beeWork, FASTIFY_KEEP_ALIVE_MS, replayable } from './replay.mjs'

/** @type {Record<string, import('./replay.mjs').CapturedAnswer>} */
const captured = JSON.parse(readFileSync(process.env.RESPONSES_FILE ?? '', 'utf8'))

const work = process.env.RUN_BEES === '1' ? await beeWork() : new Map()

const routes = new Map(Object.entries(captured).map(([path, answer]) => [path, { ...replayable(answer), run: work.get(path) }]))
const health = Buffer.from('{"status":"ok"}')
routes.set('/health', { status: 200, headers: ['content-type', 'application/json; charset=utf-8', 'content-length', String(health.length)], bytes: health })

const server = createServer((request, response) => {
  const route = routes.get(request.url ?? '')
  if (route === undefined) {
    response.writeHead(404).end()
    return
  }
  if (route.run === undefined) {
    response.writeHead(route.status, route.headers).end(route.bytes)
    return
  }
  const chunks = []
  request.on('data', (chunk) => chunks.push(chunk))
  request.on('end', () => {
    route.run(JSON.parse(Buffer.concat(chunks).toString('utf8')))
    response.writeHead(route.status, route.headers).end(route.bytes)
  })
})
// Fastify's default, so that even the Keep-Alive header matches.
server.keepAliveTimeout = FASTIFY_KEEP_ALIVE_MS
server.listen(Number(process.env.PORT), process.env.HOST)
