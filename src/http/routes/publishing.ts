import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type Static } from 'typebox'
import type { ErrorCode } from '../../core/error-catalog.js'
import { BeeId, BeeIdParams, BeeRateLimit, BeeStatus, CurrencyCode, ExecutionModeSchema, ManagedBee, PublishedBee, StringEnum, SUBSCRIPTION_PLAN_DESCRIPTION, SubscriptionPlan } from '../../core/schemas.js'
import { callerOf } from '../caller.js'
import { BEE_NOT_FOUND, BODY_CODES, BODY_NOT_JSON, bodyRefusals, PRINCIPAL_REQUIRED, refusal } from '../refusals.js'

/**
 * The id of a Bee to change or remove, as the router matches it. Ids have no dot, so `/bees/{id}.md` (the
 * Markdown view, GET only) is never taken for a Bee to change: PATCH or DELETE on it is a 405. Any other
 * malformed id still reaches the route, and its 404.
 */
const BEE_ID_PARAM = ':id([^.]+)'

const JsonSchemaInput = (description: string) => Type.Object({}, { additionalProperties: true, description })

const BeeFields = {
  name: Type.String({ minLength: 1, maxLength: 100, description: 'Human-readable name.' }),
  description: Type.String({ minLength: 1, maxLength: 4000, description: 'What the Bee does, and what its confidence and freshness mean.' }),
  category: Type.String({ minLength: 1, maxLength: 50, description: 'Functional area, e.g. reasoning, data or utility.' }),
  colony: Type.String({ minLength: 1, maxLength: 50, description: 'Grouping label (default community).' }),
  endpoint: Type.String({ maxLength: 2048, description: 'https URL Apiary POSTs each call\'s input to.' }),
  inputSchema: JsonSchemaInput('JSON Schema (draft-07) of the input; type object.'),
  outputSchema: JsonSchemaInput('JSON Schema (draft-07) of your result; type object.'),
  pricing: Type.Object({
    type: StringEnum(['free', 'pay-per-use', 'subscription'], { description: 'free, pay-per-use (from the caller\'s wallet), or subscription (with plan).' }),
    costPerCall: Type.Optional(Type.Number({
      minimum: 0,
      maximum: 1000,
      description: 'Price of one call: above 0, and required, for pay-per-use; 0 if free; a subscription\'s overagePrice or 0. ' +
        'Absent: 0 for a free Bee, the plan\'s overagePrice (or 0) for a subscription.'
    })),
    currency: Type.Optional(CurrencyCode('ISO 4217 currency (default PRICE_CURRENCY).')),
    // Inline: request bodies are compiled without the shared schemas (the document refers to it by its title).
    plan: Type.Optional(Type.Object(SubscriptionPlan.properties, { additionalProperties: false, title: 'SubscriptionPlan', description: SUBSCRIPTION_PLAN_DESCRIPTION }))
  }, { title: 'PricingChoice', description: 'What one call costs.' }),
  config: Type.Object({
    primaryServices: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 60 }), { maxItems: 20, description: 'What the Bee offers, as short service names.' })),
    executionMode: Type.Optional(ExecutionModeSchema),
    maxRunSeconds: Type.Optional(Type.Integer({ minimum: 1, description: 'async, stream: run time limit (≤ RUN_MAX_SECONDS, the default).' })),
    eventSchema: Type.Optional(JsonSchemaInput('stream: JSON Schema of each event.'))
  }, { description: 'Execution details (absent executionMode: sync).' })
}

const VERSION_PUBLISHED = 'Semantic version of three numbers (default 1.0.0). See Versions in docs/publishers.md.'
const VERSION_CHANGED = 'The version this change makes, above the current one: needed, with a new major, for a change that breaks callers ' +
  '(400 BREAKING_CHANGE lists what breaks). Absent: a change of schema makes the next minor, of endpoint alone the next patch, and ' +
  'a change of neither keeps the version. Callers pinned to an earlier version are still served it.'
const Version = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 50, description }))

const PublishBody = Type.Object({
  id: BeeId,
  version: Version(VERSION_PUBLISHED),
  ...BeeFields,
  colony: Type.Optional(BeeFields.colony),
  config: Type.Optional(BeeFields.config),
  rateLimit: Type.Optional(BeeRateLimit)
}, {
  description: 'A Bee to publish.',
  examples: [{
    id: 'shouter',
    name: 'Shouter',
    description: 'Shouts the text back in capitals. Honey confidence: always 1. Honey freshness: always 0.',
    category: 'utility',
    endpoint: 'https://shouter.example.com/execute',
    inputSchema: { type: 'object', properties: { text: { type: 'string', minLength: 1 } }, required: ['text'] },
    outputSchema: { type: 'object', properties: { shout: { type: 'string' } }, required: ['shout'] },
    pricing: { type: 'free' }
  }]
})

const PatchBody = Type.Object({
  version: Version(VERSION_CHANGED),
  name: Type.Optional(BeeFields.name),
  description: Type.Optional(BeeFields.description),
  category: Type.Optional(BeeFields.category),
  colony: Type.Optional(BeeFields.colony),
  endpoint: Type.Optional(BeeFields.endpoint),
  inputSchema: Type.Optional(BeeFields.inputSchema),
  outputSchema: Type.Optional(BeeFields.outputSchema),
  pricing: Type.Optional(BeeFields.pricing),
  config: Type.Optional(BeeFields.config),
  rateLimit: Type.Optional(Type.Unsafe<Static<typeof BeeRateLimit> | null>({
    ...BeeRateLimit,
    nullable: true,
    description: 'A new limit on calls from all callers together, or null to remove it.'
  })),
  status: Type.Optional(BeeStatus),
  statusMessage: Type.Optional(Type.Unsafe<string | null>({ type: 'string', nullable: true, maxLength: 500, description: 'Why the Bee is inactive or deprecated.' })),
  sunsetAt: Type.Optional(Type.Unsafe<string | null>({ type: 'string', format: 'date-time', nullable: true, description: 'When a deprecated Bee stops answering: an RFC 3339 date-time that exists (no leap second).' }))
}, { description: 'The fields to change; status changes follow the lifecycle.', examples: [{ status: 'inactive', statusMessage: 'Down for maintenance until noon UTC.' }] })

const tooLarge = refusal('The body is larger than BODY_LIMIT_BYTES, or the Bee\'s name, description and schemas would make its OpenAPI document larger than a Bee may.',
  [...BODY_CODES[413], 'BEE_DOCUMENT_TOO_LARGE'], { name: 'BeeTooLarge' })
/** Refusals of a Bee's fields, whether published or changed. */
const FIELD_CODES: ErrorCode[] = ['VALIDATION_FAILED', 'INVALID_AMOUNT', 'INVALID_PRICE', 'INVALID_SCHEMA', 'INVALID_EXECUTION', 'ENDPOINT_FORBIDDEN', 'INVALID_VERSION']

/** Publishers register, change and retire their Bees; the operator manages all, and the built-ins' status. */
const publishingRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { publishing } = fastify

  fastify.post('/bees', {
    schema: {
      tags: ['publishing'],
      operationId: 'publish-bee',
      summary: 'Publish a Bee',
      description: 'Registers a Bee hosted at your endpoint. Apiary validates, meters and proxies its calls. The answer ' +
        'holds the signing secret of its calls: the only time it is shown.',
      security: [{ publisherKey: [] }],
      body: PublishBody,
      response: {
        201: PublishedBee,
        ...bodyRefusals('The body does not match its schema, or a price, schema, endpoint or version is refused.', FIELD_CODES),
        401: PRINCIPAL_REQUIRED,
        403: refusal('Only publishers publish: the admin token cannot.', ['PUBLISHER_REQUIRED']),
        409: refusal('The id is taken or reserved, or you have as many Bees as a publisher may have.', ['BEE_ID_TAKEN', 'BEE_ID_RESERVED', 'PUBLISHER_BEE_LIMIT']),
        413: tooLarge
      }
    },
    onRequest: fastify.requirePrincipal
  }, async (request, reply) => reply.code(201).send(await publishing.publish(callerOf(request), request.body)))

  fastify.patch(`/bees/${BEE_ID_PARAM}`, {
    schema: {
      tags: ['publishing'],
      operationId: 'update-bee',
      summary: 'Change a Bee',
      description: 'Updates fields and status. Status: active ⇄ inactive; active or inactive → deprecated (with a ' +
        'statusMessage and an optional sunsetAt); only the operator revives a deprecated Bee, and only the operator ' +
        'changes a built-in Bee, whose status is all that can change.',
      security: [{ publisherKey: [] }, { adminToken: [] }],
      params: BeeIdParams,
      body: PatchBody,
      response: {
        200: ManagedBee,
        ...bodyRefusals('The body does not match its schema, a price, schema, endpoint or version is refused, the change breaks callers without a new major version, an imported Bee\'s endpoint or schemas are changed, or the status change is not allowed as sent.',
          [...FIELD_CODES, 'STATUS_MESSAGE_REQUIRED', 'SUNSET_WITHOUT_DEPRECATION', 'BREAKING_CHANGE', 'IMPORTED_BEE_FIELD']),
        401: PRINCIPAL_REQUIRED,
        403: refusal('The Bee is built in (only its status changes, by the operator), or only the operator may revive it.', ['BEE_RESERVED', 'BEE_DEPRECATED']),
        404: BEE_NOT_FOUND,
        413: tooLarge
      }
    },
    onRequest: fastify.requirePrincipal
  }, async (request) => await publishing.update(callerOf(request), request.params.id, request.body))

  fastify.delete(`/bees/${BEE_ID_PARAM}`, {
    schema: {
      tags: ['publishing'],
      operationId: 'delete-bee',
      summary: 'Remove a Bee',
      security: [{ publisherKey: [] }, { adminToken: [] }],
      params: BeeIdParams,
      response: {
        204: Type.Null({ description: 'Removed.' }),
        ...BODY_NOT_JSON,
        401: PRINCIPAL_REQUIRED,
        403: refusal('The Bee is built in: set its status instead.', ['BEE_RESERVED']),
        404: BEE_NOT_FOUND
      }
    },
    onRequest: fastify.requirePrincipal
  }, async (request, reply) => {
    await publishing.retire(callerOf(request), request.params.id)
    return reply.code(204).send(null)
  })
}

export default publishingRoutes
