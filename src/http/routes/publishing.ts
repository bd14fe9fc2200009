import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type, type Static } from 'typebox'
import type { CodeWithStatus, ErrorCode, OneStatusCode } from '../../core/error-catalog.js'
import { beeNotFound, failure, type ApiError } from '../../core/errors.js'
import type { CatalogBee, ChangedBee, StoredBee } from '../../core/ledger/catalog/catalog-repository.js'
import { newSecret } from '../../core/ledger/secrets.js'
import { toMicros } from '../../core/money.js'
import { SchemaRefused } from '../../core/publishing/json-schema.js'
import { forOpenApiDocument } from '../../core/publishing/openapi-document-schema.js'
import { publishedRecord } from '../../core/publishing/published-bee.js'
import { checkLoadable } from '../../core/publishing/schema-checks.js'
import { toInputSchema, toOutputSchema } from '../../core/publishing/schema-conversion.js'
import { nextStatus } from '../../core/publishing/lifecycle.js'
import type { RegisteredBee } from '../../core/registry.js'
import { BeeId, BeeIdParams, BeeRateLimit, type BeeRecord, BeeStatus, CurrencyCode, ManagedBee, PublishedBee, StringEnum, SUBSCRIPTION_PLAN_DESCRIPTION, SubscriptionPlan } from '../../core/schemas.js'
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
    primaryServices: Type.Array(Type.String({ minLength: 1, maxLength: 60 }), { maxItems: 20, description: 'What the Bee offers, as short service names.' })
  }, { description: 'Execution details.' })
}

const PublishBody = Type.Object({
  id: BeeId,
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
const FIELD_CODES: ErrorCode[] = ['VALIDATION_FAILED', 'INVALID_AMOUNT', 'INVALID_PRICE', 'INVALID_SCHEMA', 'ENDPOINT_FORBIDDEN']

const STATUS_FIELDS = new Set(['status', 'statusMessage', 'sunsetAt'])

function refused (code: Extract<OneStatusCode, CodeWithStatus<400>>, message: string): ApiError {
  return failure(code, message)
}

function priceOf (pricing: Static<typeof BeeFields.pricing>, defaultCurrency: string): StoredBee['pricing'] {
  // The spec makes costPerCall optional: it is 0 for a free Bee, and a subscription's follows from its plan.
  const costPerCall = pricing.costPerCall ?? (pricing.type === 'subscription' ? pricing.plan?.overagePrice ?? 0 : 0)
  const costMicros = toMicros(costPerCall)
  if (costMicros === null) throw refused('INVALID_AMOUNT', 'costPerCall has at most 6 decimal places.')
  if (pricing.type === 'pay-per-use' && costMicros === 0) throw refused('INVALID_PRICE', 'A pay-per-use Bee needs a costPerCall above 0.')
  if (pricing.type === 'free' && costMicros !== 0) throw refused('INVALID_PRICE', 'A free Bee has costPerCall 0.')
  const currency = pricing.currency ?? defaultCurrency
  if (pricing.type !== 'subscription') {
    if (pricing.plan !== undefined) throw refused('INVALID_PRICE', 'Only a subscription Bee has a plan.')
    return { type: pricing.type, costMicros, currency }
  }
  const { plan } = pricing
  if (plan === undefined) throw refused('INVALID_PRICE', 'A subscription Bee needs a plan.')
  if (toMicros(plan.periodPrice) === null || (plan.overagePrice !== null && toMicros(plan.overagePrice) === null)) {
    throw refused('INVALID_AMOUNT', 'Plan prices have at most 6 decimal places.')
  }
  if ((plan.overagePrice ?? 0) !== costPerCall) throw refused('INVALID_PRICE', 'A subscription Bee\'s costPerCall is its plan\'s overagePrice, or 0 without one.')
  return { type: 'subscription', costMicros, currency, plan }
}

function schemaOf (convert: () => Record<string, unknown>): StoredBee['inputSchema'] {
  try {
    return convert() as StoredBee['inputSchema']
  } catch (error) {
    if (error instanceof SchemaRefused) throw refused('INVALID_SCHEMA', error.message)
    throw error
  }
}

/**
 * A stored schema a change keeps. One stored by an older version may be one this version cannot
 * load (the catalog skips such a Bee): the change must then bring a new one, else the Bee would stay
 * unservable. Only loadability is checked, so a legacy Bee can still be deprecated as it is.
 */
function keptSchema (schema: StoredBee['inputSchema'], where: 'inputSchema' | 'outputSchema'): StoredBee['inputSchema'] {
  return schemaOf(() => {
    try {
      checkLoadable(schema, `the stored ${where}`)
    } catch (error) {
      if (error instanceof SchemaRefused) throw new SchemaRefused(`${error.message}. Send a new ${where} with this change.`)
      throw error
    }
    return schema
  })
}

/**
 * What a Bee puts in its OpenAPI document (GET /api/bees/{id}/openapi.json), which a client reads whole: its name,
 * description and both schemas, written as the document writes them.
 */
function checkDocumentShare (bee: ChangedBee, maxBytes: number): void {
  const bytes = Buffer.byteLength(JSON.stringify([bee.name, bee.description, forOpenApiDocument(bee.inputSchema), forOpenApiDocument(bee.outputSchema)]))
  if (bytes > maxBytes) {
    throw failure('BEE_DOCUMENT_TOO_LARGE', `This Bee would take ${bytes} bytes of its OpenAPI document (its name, description ` +
      `and schemas); a Bee may take at most ${maxBytes} (PUBLISHER_MAX_OPENAPI_BYTES). Shorten its schemas or description.`)
  }
}

/** What the owner and the operator see of a Bee. */
function managed (record: BeeRecord, stored: ChangedBee | undefined, callsPerMinute: number | null): Static<typeof ManagedBee> {
  return {
    ...record,
    upstreamEndpoint: stored?.endpoint ?? null,
    ownerEmail: stored?.ownerEmail ?? null,
    rateLimit: callsPerMinute === null ? null : { callsPerMinute }
  }
}

/**
 * A published Bee as written, which is what every instance serves of it: built from what was stored rather than
 * read back and loaded (a query and the Bee's registration per change).
 */
const managedPublished = (stored: ChangedBee) => managed(publishedRecord(stored), stored, stored.callsPerMinute)

/** Publishers register, change and retire their Bees; the operator manages all, and the built-ins' status. */
const publishingRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { registry, catalog, config } = fastify
  const store = fastify.ledger.catalog
  const isBuiltIn = (id: string) => registry.builtin(id) !== undefined

  async function checkEndpoint (endpoint: string): Promise<void> {
    const problem = await catalog.egress.check(endpoint)
    if (problem !== null) throw refused('ENDPOINT_FORBIDDEN', problem)
  }

  /**
   * The stored Bee the caller may manage, or 404: someone else's Bee is not shown to exist. Its signing secrets stay
   * sealed: no change writes them (see ChangedBee).
   */
  async function owned (request: FastifyRequest, id: string): Promise<CatalogBee> {
    const stored = await store.catalogBee(id)
    const principal = request.principal
    if (stored === null || principal === null || (principal.kind === 'publisher' && principal.publisher.id !== stored.ownerId)) {
      throw beeNotFound(id)
    }
    return stored
  }

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
        ...bodyRefusals('The body does not match its schema, or a price, schema or endpoint is refused.', FIELD_CODES),
        401: PRINCIPAL_REQUIRED,
        403: refusal('Only publishers publish: the admin token cannot.', ['PUBLISHER_REQUIRED']),
        409: refusal('The id is taken or reserved, or you have as many Bees as a publisher may have.', ['BEE_ID_TAKEN', 'BEE_ID_RESERVED', 'PUBLISHER_BEE_LIMIT']),
        413: tooLarge
      }
    },
    onRequest: fastify.requirePrincipal
  }, async (request, reply) => {
    const principal = request.principal
    if (principal?.kind !== 'publisher') {
      throw failure('PUBLISHER_REQUIRED', 'Bees are published with a publisher key: issue one with POST /api/publishers.')
    }
    const body = request.body
    if (isBuiltIn(body.id)) throw failure('BEE_ID_RESERVED', `"${body.id}" is a built-in Bee's id.`)
    const inputSchema = schemaOf(() => toInputSchema(body.inputSchema))
    const outputSchema = schemaOf(() => toOutputSchema(body.outputSchema))
    const pricing = priceOf(body.pricing, config.PRICE_CURRENCY)
    await checkEndpoint(body.endpoint)
    const now = new Date().toISOString()
    const stored: StoredBee = {
      id: body.id,
      ownerId: principal.publisher.id,
      ownerEmail: principal.publisher.email,
      name: body.name,
      description: body.description,
      category: body.category,
      colony: body.colony ?? 'community',
      endpoint: body.endpoint,
      inputSchema,
      outputSchema,
      primaryServices: body.config?.primaryServices ?? [],
      pricing,
      status: 'active',
      statusMessage: null,
      sunsetAt: null,
      callsPerMinute: body.rateLimit?.callsPerMinute ?? null,
      signingSecret: newSecret('bsk'),
      version: 1,
      createdAt: now,
      updatedAt: now
    }
    checkDocumentShare(stored, config.PUBLISHER_MAX_OPENAPI_BYTES)
    const inserted = await store.insertBeeWithinQuota(stored, config.PUBLISHER_MAX_BEES)
    if (inserted.outcome === 'taken') throw failure('BEE_ID_TAKEN', `A Bee with the id "${body.id}" exists already.`)
    if (inserted.outcome === 'over-quota') {
      throw failure('PUBLISHER_BEE_LIMIT', `You have ${config.PUBLISHER_MAX_BEES} Bees, as many as a publisher may have ` +
        '(PUBLISHER_MAX_BEES): remove one before publishing another.')
    }
    await catalog.refresh({ version: inserted.version, ids: [stored.id] })
    request.log.info({ beeId: stored.id, ownerId: stored.ownerId }, 'Bee published')
    return reply.code(201).send({ ...managedPublished(stored), signingSecret: stored.signingSecret })
  })

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
        ...bodyRefusals('The body does not match its schema, a price, schema or endpoint is refused, or the status change is not allowed as sent.',
          [...FIELD_CODES, 'STATUS_MESSAGE_REQUIRED', 'SUNSET_WITHOUT_DEPRECATION']),
        401: PRINCIPAL_REQUIRED,
        403: refusal('The Bee is built in (only its status changes, by the operator), or only the operator may revive it.', ['BEE_RESERVED', 'BEE_DEPRECATED']),
        404: BEE_NOT_FOUND,
        413: tooLarge
      }
    },
    onRequest: fastify.requirePrincipal
  }, async (request) => {
    const { id } = request.params
    const body = request.body
    const byAdmin = request.principal?.kind === 'admin'
    const now = new Date().toISOString()

    if (isBuiltIn(id)) {
      if (!byAdmin) throw failure('BEE_RESERVED', `${id} is a built-in Bee: only the operator may change its status.`)
      const other = Object.keys(body).find((field) => !STATUS_FIELDS.has(field))
      if (other !== undefined) throw failure('BEE_RESERVED', `${id} is a built-in Bee: only its status can change, not ${other}.`)
      const bee = registry.builtin(id) as RegisteredBee
      const next = nextStatus(bee.record, body, true)
      await store.setBuiltinState({ id, ...next, updatedAt: now })
      await catalog.refresh()
      const changed = registry.builtin(id) as RegisteredBee
      return managed(changed.record, undefined, changed.callsPerMinute)
    }

    const stored = await owned(request, id)
    const next = nextStatus(stored, body, byAdmin)
    if (body.endpoint !== undefined) await checkEndpoint(body.endpoint)
    const { secrets: _sealed, ...kept } = stored
    const updated: ChangedBee = {
      ...kept,
      ...next,
      name: body.name ?? stored.name,
      description: body.description ?? stored.description,
      category: body.category ?? stored.category,
      colony: body.colony ?? stored.colony,
      endpoint: body.endpoint ?? stored.endpoint,
      inputSchema: body.inputSchema === undefined ? keptSchema(stored.inputSchema, 'inputSchema') : schemaOf(() => toInputSchema(body.inputSchema)),
      outputSchema: body.outputSchema === undefined ? keptSchema(stored.outputSchema, 'outputSchema') : schemaOf(() => toOutputSchema(body.outputSchema)),
      pricing: body.pricing === undefined ? stored.pricing : priceOf(body.pricing, config.PRICE_CURRENCY),
      primaryServices: body.config?.primaryServices ?? stored.primaryServices,
      callsPerMinute: body.rateLimit === undefined ? stored.callsPerMinute : body.rateLimit?.callsPerMinute ?? null,
      version: stored.version + 1,
      updatedAt: now
    }
    checkDocumentShare(updated, config.PUBLISHER_MAX_OPENAPI_BYTES)
    const version = await store.updateBee(updated)
    // Removed since it was read: there is nothing to show changed.
    if (version === null) throw beeNotFound(id)
    await catalog.refresh({ version, ids: [id] })
    request.log.info({ beeId: id, status: updated.status }, 'Bee changed')
    return managedPublished(updated)
  })

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
    const { id } = request.params
    if (isBuiltIn(id)) throw failure('BEE_RESERVED', `${id} is a built-in Bee and cannot be removed; set its status instead.`)
    await owned(request, id)
    await store.deleteBee(id)
    await catalog.refresh()
    request.log.info({ beeId: id }, 'Bee removed')
    return reply.code(204).send(null)
  })
}

export default publishingRoutes
