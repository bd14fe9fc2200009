import fp from 'fastify-plugin'
import { refuseNonFinite } from '../src/http/finite-numbers.js'
import { compileRouteBody, lazyValidator, stringAjv } from '../src/core/validation.js'

/**
 * Route schemas are compiled (on first use, see lazyValidator) with our own Ajv instances: bodies strictly (no type coercion),
 * path and query with coercion (and no Infinity, see refuseNonFinite). Only JSON bodies are parsed; any other content type gets 415.
 */
export default fp(async (fastify) => {
  fastify.setValidatorCompiler(({ schema, httpPart }) =>
    lazyValidator(() => httpPart === 'body' ? compileRouteBody(schema) : refuseNonFinite(stringAjv.compile(schema))))
  fastify.removeContentTypeParser('text/plain')
}, { name: 'validation' })
