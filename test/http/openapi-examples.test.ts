import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import type { OpenAPIV3 } from 'openapi-types'
import { test } from 'tap'
import { build } from '../helper.js'

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'] as const

interface Sample { where: string, schema: unknown, example: unknown }

/** Every example of the document (request bodies and responses, shared ones through their $ref), with its schema; and what lacks one. */
function samples (document: OpenAPIV3.Document) {
  const found: Sample[] = []
  const missing: string[] = []
  const response = (value: OpenAPIV3.ResponseObject | OpenAPIV3.ReferenceObject) =>
    '$ref' in value ? document.components?.responses?.[value.$ref.split('/').pop() ?? ''] as OpenAPIV3.ResponseObject : value
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item?.[method]
      if (operation === undefined) continue
      const name = `${method.toUpperCase()} ${path}`
      const body = (operation.requestBody as OpenAPIV3.RequestBodyObject | undefined)?.content['application/json']
      if (body !== undefined) {
        if (body.example === undefined) missing.push(`${name} request body`)
        else found.push({ where: `${name} request body`, schema: body.schema, example: body.example })
      }
      for (const [status, value] of Object.entries(operation.responses)) {
        for (const [type, media] of Object.entries(response(value)?.content ?? {})) {
          const where = `${name} ${status} ${type}`
          // A shared schema's own example stands for every answer that names it.
          const named = media.schema === undefined ? undefined : '$ref' in media.schema ? media.schema : media.schema.allOf?.[0]
          const shared = named !== undefined && '$ref' in named
            ? document.components?.schemas?.[named.$ref.split('/').pop() ?? ''] as OpenAPIV3.SchemaObject | undefined
            : undefined
          const example = media.example ?? shared?.example
          if (example === undefined) missing.push(where)
          else found.push({ where, schema: media.example === undefined ? named : media.schema, example })
        }
      }
    }
  }
  return { found, missing }
}

/** A validator of one schema of the document, its $refs resolved against the document's components. */
function validatorOf (document: OpenAPIV3.Document) {
  const ajv = new Ajv({ strict: false, allErrors: false })
  addFormats.default(ajv)
  ajv.addSchema({ components: document.components }, 'document')
  return (schema: unknown) => ajv.compile({ ...JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"document#/components/')) })
}

for (const [label, env] of [['by default', {}], ['with metrics on a token', { METRICS_TOKEN: 'metrics-token-0123456789' }]] as const) {
  test(`every operation has an example on its request body and on each response, and each fits its schema (${label})`, async (t) => {
    const app = await build(t, { env })
    const document = (await app.inject('/openapi/openapi.json')).json<OpenAPIV3.Document>()
    const { found, missing } = samples(document)
    t.same(missing, [], 'nothing without an example')
    t.ok(found.length > 100, `${found.length} examples`)
    const validator = validatorOf(document)
    const wrong = found.filter((sample) => {
      const validate = validator(sample.schema)
      return !validate(structuredClone(sample.example))
    }).map((sample) => sample.where)
    t.same(wrong, [], 'every example is valid against its schema')
  })
}

test('the shared error body\'s example speaks as the service does: error, code, message, in that order', async (t) => {
  const app = await build(t)
  const document = (await app.inject('/openapi/openapi.json')).json<OpenAPIV3.Document>()
  const example = (document.components?.schemas?.Error as OpenAPIV3.SchemaObject).example as Record<string, unknown>
  t.same(Object.keys(example).slice(0, 3), ['error', 'code', 'message'])
  t.match(example.error, /^[A-Z][A-Za-z ]+$/, 'a status text')
})
