// The floor for discovery, detail and execute: node:http sending the exact answer Apiary sent (its status, every
// header it wrote, in order, and its body) with no framework. Plain .mjs so it runs under `node` without a TypeScript loader.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { FASTIFY_KEEP_ALIVE_MS, replayable } from './replay.mjs'

/** @type {Record<string, import('./replay.mjs').CapturedAnswer>} */
const captured = JSON.parse(readFileSync(process.env.RESPONSES_FILE ?? '', 'utf8'))

const routes = new Map(Object.entries(captured).map(([path, answer]) => [path, replayable(answer)]))
const health = Buffer.from('{"status":"ok"}')
routes.set('/health', { status: 200, headers: ['content-type', 'application/json; charset=utf-8', 'content-length', String(health.length)], bytes: health })

const server = createServer((request, response) => {
  const route = routes.get(request.url ?? '')
  if (route === undefined) {
    response.writeHead(404).end()
    return
  }
  response.writeHead(route.status, route.headers).end(route.bytes)
})
// Fastify's default, so that even the Keep-Alive header matches.
server.keepAliveTimeout = FASTIFY_KEEP_ALIVE_MS
server.listen(Number(process.env.PORT), process.env.HOST)
