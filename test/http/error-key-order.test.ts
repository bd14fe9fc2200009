import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { RouteOptions } from 'fastify'
import { test } from 'tap'
import { build } from '../helper.js'

/** A refusal with every field any error body has, its keys in the wrong order on purpose. */
const scrambled = {
  details: [{ field: '/x', reason: 'is invalid' }],
  retryAfter: 1,
  transactionDetails: { beeId: 'b', cost: 1, currency: 'USD', requiredHeader: 'X-Registry-Wallet-Token', howToPay: 'Pay.' },
  message: 'What went wrong.',
  code: 'SOME_CODE',
  error: 'Bad Request'
}

test('every error response of every route writes error, code, message in that order', async (t) => {
  const routes: RouteOptions[] = []
  const app = await build(t, { routes })
  const compile = SerializerSelector()(app.getSchemas(), {})
  let checked = 0
  for (const route of routes) {
    const responses = (route.schema?.response ?? {}) as Record<string, unknown>
    for (const [status, schema] of Object.entries(responses)) {
      if (Number(status) < 400 && !/^[45]xx$/.test(status)) continue
      // An HTML page (the OAuth consent page) says its refusal in words, not in a JSON body.
      const content = (schema as { content?: Record<string, unknown> }).content
      if (content !== undefined && content['application/json'] === undefined) continue
      const serialize = compile({ schema, method: String(route.method), url: route.url, httpStatus: status })
      let body: Record<string, unknown>
      try {
        body = JSON.parse(serialize(scrambled))
      } catch (error) {
        // A JSON-RPC door's error response: its own envelope, which the door's hook builds from a body in order.
        t.match(route.url, /^\/(mcp|mcp\/oauth|a2a)$/, `${String(route.method)} ${route.url} ${status}: only a JSON-RPC door has another shape (${String(error)})`)
        continue
      }
      checked++
      t.same(Object.keys(body).slice(0, 3), ['error', 'code', 'message'], `${String(route.method)} ${route.url} ${status}`)
    }
  }
  t.ok(checked > 200, `${checked} error responses checked`)
})
