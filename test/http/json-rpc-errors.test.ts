import { test } from 'tap'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { jsonRpcRefusals } from '../../src/http/json-rpc-errors.js'

const wrap = jsonRpcRefusals((body) => ({ wrapped: body.code }))
const refusal = (statusCode: number, payload: unknown) => wrap({} as FastifyRequest, { statusCode } as FastifyReply, payload)

test('the app\'s refusals become JSON-RPC errors with the door\'s details; everything else passes', async (t) => {
  const body = (code: string) => ({ error: 'Bad Request', code, message: `refused: ${code}` })
  t.same(await refusal(400, body('INVALID_JSON')), {
    jsonrpc: '2.0', id: null, error: { code: -32700, message: 'refused: INVALID_JSON', data: { wrapped: 'INVALID_JSON' } }
  })
  t.match(await refusal(413, body('BODY_TOO_LARGE')), { error: { code: -32600 } })
  t.match(await refusal(500, body('INVALID_JSON')), { error: { code: -32603 } }, 'our failure, whatever its code')
  const answer = { jsonrpc: '2.0', id: 1, result: {} }
  t.equal(await refusal(200, answer), answer)
  t.equal(await refusal(400, null), null, 'not an error body')
  t.same(await refusal(200, { code: 'x' }), { code: 'x' }, 'a success that happens to carry a code')
})
