import type { FastifyPluginAsync } from 'fastify'
import { Type } from 'typebox'
import { etagOf } from '../cached-text.js'
import { NO_HOST } from '../refusals.js'

/** Gateways may keep the key set a while: a token signed by a newer key makes jose's remote key set fetch again. */
const CACHE_CONTROL = 'public, max-age=300'

const Jwks = Type.Object({
  keys: Type.Array(Type.Object({}, { additionalProperties: true, description: 'An Ed25519 public key: kty OKP, crv, x, kid, alg EdDSA, use sig.' }), { description: 'Newest first.' })
}, { description: 'A JWK Set (RFC 7517).' })

/**
 * The public keys verification tokens are signed with (RFC 7517), so a gateway in front of Apiary can
 * verify tokens offline. The current key is created first if no instance has yet, so the set always
 * holds the key that signs now.
 */
const jwksRoutes: FastifyPluginAsync = async (fastify) => {
  const { keyring } = fastify.walletTokens
  fastify.get('/.well-known/jwks.json', {
    schema: {
      tags: ['wallets'],
      operationId: 'jwks',
      security: [],
      summary: 'The public keys of verification tokens (JWKS)',
      description: 'Every key whose tokens may still be valid. ETag; 304 on If-None-Match.',
      response: {
        200: Jwks,
        304: Type.Null({ description: 'Not modified since the ETag you sent.' }),
        400: NO_HOST
      }
    }
  }, async (request, reply) => {
    await keyring.signingKey()
    const body = JSON.stringify(await keyring.jwks())
    const etag = etagOf(body)
    reply.header('etag', etag).header('cache-control', CACHE_CONTROL)
    if (request.headers['if-none-match'] === etag) return await reply.code(304).send(null)
    return await reply.type('application/json; charset=utf-8').send(body)
  })
}

export default jwksRoutes
