import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { ValidateFunction } from 'ajv'

/**
 * Route schemas compiled on their first use instead of at start. The ~150 validators and serializers
 * (every status of every route) took about a quarter of a cold start, and most are not needed in an
 * instance's first seconds; each costs its compile once, on the first request that needs it. The
 * schemas are static and every route and status is exercised by the tests, so a broken one is still
 * found before it ships.
 */
export function lazyValidator (compile: () => ValidateFunction): ValidateFunction {
  let compiled: ValidateFunction | undefined
  const validate = function (this: unknown, data: unknown) {
    compiled ??= compile()
    const valid = compiled.call(this, data) as boolean
    // Fastify reads a failed validation's errors from the function it was given.
    validate.errors = compiled.errors
    return valid
  } as ValidateFunction
  return validate
}

const buildSerializer = SerializerSelector()

/** Fastify's own serializer factory (fast-json-stringify), each route's serializer built on its first answer. */
export const lazySerializers: typeof buildSerializer = (externalSchemas, options) => {
  const compile = buildSerializer(externalSchemas, options)
  return (route) => {
    let serialize: ((document: unknown) => string) | undefined
    return (document) => (serialize ??= compile(route))(document)
  }
}
