import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'

const buildSerializer = SerializerSelector()

/** Fastify's own serializer factory (fast-json-stringify), each route's serializer built on its first answer. */
export const lazySerializers: typeof buildSerializer = (externalSchemas, options) => {
  const compile = buildSerializer(externalSchemas, options)
  return (route) => {
    let serialize: ((document: unknown) => string) | undefined
    return (document) => (serialize ??= compile(route))(document)
  }
}
