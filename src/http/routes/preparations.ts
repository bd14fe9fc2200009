import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { Preparation, PreparationInputFields, PreparationStatus } from '../../core/preparations/schemas.js'
import { PageQuery, paged, ref } from '../../core/schemas.js'
import { cachedText, sendCached } from '../cached-text.js'
import { callerOf } from '../caller.js'
import { BODY_NOT_JSON, bodyRefusals, PAGE_REFUSED, PRINCIPAL_REQUIRED, refusal, REQUEST_INVALID } from '../refusals.js'

const IdParams = Type.Object({ id: Type.String({ description: 'Preparation id (bee_…).' }) })

const CreateBody = Type.Object({
  ...PreparationInputFields,
  targetAudience: Type.Optional(PreparationInputFields.targetAudience),
  notes: Type.Optional(PreparationInputFields.notes)
}, {
  description: 'The website to prepare and what the business says of itself.',
  examples: [{
    name: 'Acme Bakery site',
    websiteUrl: 'https://acme-bakery.example',
    businessName: 'Acme Bakery',
    description: 'A neighbourhood bakery baking sourdough and pastries every morning.',
    primaryServices: ['Sourdough bread', 'Custom cakes']
  }]
})

const EditableFiles = Type.Object({
  schemaOrgJsonLd: Type.Optional(Type.String({ maxLength: 1_000_000, description: 'The JSON-LD document, as serialized JSON (an object).' })),
  notes: Type.Optional(Type.String({ maxLength: 100_000, description: 'Notes on the files.' })),
  semanticSummary: Type.Optional(Type.String({ maxLength: 100_000, description: 'The Markdown summary.' })),
  llmsTxt: Type.Optional(Type.String({ maxLength: 1_000_000, description: 'The llms.txt.' })),
  agentManifest: Type.Optional(Type.String({ maxLength: 1_000_000, description: 'The agent manifest as serialized JSON (an object), or the empty string.' }))
}, { description: 'Reviewed output files: the fields given replace the produced ones.' })

const PatchBody = Type.Object({
  name: Type.Optional(PreparationInputFields.name),
  websiteUrl: Type.Optional(PreparationInputFields.websiteUrl),
  businessName: Type.Optional(PreparationInputFields.businessName),
  description: Type.Optional(PreparationInputFields.description),
  primaryServices: Type.Optional(PreparationInputFields.primaryServices),
  targetAudience: Type.Optional(PreparationInputFields.targetAudience),
  notes: Type.Optional(PreparationInputFields.notes),
  outputFiles: Type.Optional(EditableFiles)
}, {
  minProperties: 1,
  description: 'Either new inputs (the job is queued again from scratch), or outputFiles edits (the record is marked ' +
    'completed by you); not both.',
  examples: [{ primaryServices: ['Sourdough bread', 'Custom cakes', 'Catering'] }]
})

const ListQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(PreparationStatus)
})

const PREPARATION = ref(Preparation)
const NOT_FOUND = refusal('No preparation with this id that you manage.', ['PREPARATION_NOT_FOUND'], { name: 'PreparationNotFound' })
/** The refusals of a route that names a record and reads no body (GET). */
const errors = { 400: REQUEST_INVALID, 401: PRINCIPAL_REQUIRED, 404: NOT_FOUND }
/** The same for a POST or DELETE, whose body (none is needed) is still read if sent. */
const bodyErrors = { ...BODY_NOT_JSON, 401: PRINCIPAL_REQUIRED, 404: NOT_FOUND }
const stateConflict = { 409: refusal('The record is not in a state this action applies to.', ['PREPARATION_STATE'], { name: 'PreparationState' }) }

/** The output files, each at its own URL with its media type. */
const FILES = [
  { path: 'llms.txt', field: 'llmsTxt', type: 'text/plain; charset=utf-8', media: 'text/plain', title: 'the llms.txt' },
  { path: 'schema.jsonld', field: 'schemaOrgJsonLd', type: 'application/ld+json', media: 'application/ld+json', title: 'the schema.org JSON-LD' },
  { path: 'agent-manifest.json', field: 'agentManifest', type: 'application/json; charset=utf-8', media: 'application/json', title: 'the agent manifest' },
  { path: 'summary.md', field: 'semanticSummary', type: 'text/markdown; charset=utf-8', media: 'text/markdown', title: 'the semantic summary' }
] as const

/**
 * Website preparation records (spec §2.5) over HTTP: what each use case (PreparationService) answers, with its
 * status; someone else's record answers 404, as if it did not exist.
 */
const preparationRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { preparations } = fastify
  const tags = ['preparations']
  const security: Array<Record<string, string[]>> = [{ publisherKey: [] }, { adminToken: [] }]

  fastify.post('/preparations', {
    schema: {
      tags,
      security,
      operationId: 'create-preparation',
      summary: 'Submit a website to prepare',
      description: 'Queues a job that crawls the site (robots.txt respected, same site only, within the operator\'s budgets) and ' +
        'composes its llms.txt, schema.org JSON-LD, agent manifest and summary. ownerId and ownerEmail come from your key. ' +
        'Follow progress with GET /api/preparations/{id}.',
      body: CreateBody,
      response: {
        202: PREPARATION,
        ...bodyRefusals('The body does not match its schema, or the website is one Apiary does not crawl.', ['VALIDATION_FAILED', 'WEBSITE_FORBIDDEN']),
        401: PRINCIPAL_REQUIRED
      }
    },
    onRequest: fastify.requirePrincipal
  }, async (request, reply) => reply.code(202).send(await preparations.submit(callerOf(request), request.body)))

  fastify.get('/preparations', {
    schema: {
      tags,
      security,
      operationId: 'list-preparations',
      summary: 'List your preparations',
      description: 'Your preparation records (the operator: everyone\'s) in id order, a page at a time: pass nextCursor back as ' +
        'cursor. Filter by status.',
      querystring: ListQuery,
      response: {
        200: paged('preparations', PREPARATION),
        400: PAGE_REFUSED,
        401: PRINCIPAL_REQUIRED
      }
    },
    onRequest: fastify.requirePrincipal
  }, async (request) => {
    const listed = await preparations.list(callerOf(request), request.query)
    return { preparations: listed.items, nextCursor: listed.nextCursor }
  })

  fastify.get('/preparations/:id', {
    schema: {
      tags,
      security,
      operationId: 'get-preparation',
      summary: 'Read a preparation',
      description: 'The record with its status, progress ({pagesFetched, pagesPlanned, stage}), error and, once produced, outputFiles.',
      params: IdParams,
      response: { 200: PREPARATION, ...errors }
    },
    onRequest: fastify.requirePrincipal
  }, async (request) => await preparations.get(callerOf(request), request.params.id))

  fastify.patch('/preparations/:id', {
    schema: {
      tags,
      security,
      operationId: 'update-preparation',
      summary: 'Change a preparation\'s inputs, or review its files',
      description: 'New inputs queue the job again from scratch, whatever its state (a run in progress is abandoned). ' +
        'outputFiles edits (on a completed, failed or canceled record) replace those files and mark the record completed, ' +
        'with completedBy your e-mail address (the operator\'s: PREPARER_EMAIL).',
      params: IdParams,
      body: PatchBody,
      response: {
        200: PREPARATION,
        ...bodyRefusals('The body does not match its schema, mixes inputs and outputFiles, holds a file that is not a JSON object where ' +
          'one is due, or names a website Apiary does not crawl.', ['VALIDATION_FAILED', 'PATCH_MIXED', 'OUTPUT_INVALID', 'WEBSITE_FORBIDDEN']),
        401: PRINCIPAL_REQUIRED,
        404: NOT_FOUND,
        ...stateConflict
      }
    },
    onRequest: fastify.requirePrincipal
  }, async (request) => await preparations.change(callerOf(request), request.params.id, request.body))

  /** The actions that only move a record on: retry queues it again, cancel stops it. */
  const actions = [
    {
      action: 'retry',
      summary: 'Run a preparation again',
      description: 'Queues a failed, canceled or completed preparation again, with its attempts counted from zero.'
    },
    {
      action: 'cancel',
      summary: 'Cancel a queued or running preparation',
      description: 'A running job stops at its next step. The record stays (retry it, or DELETE it).'
    }
  ] as const
  for (const { action, summary, description } of actions) {
    fastify.post(`/preparations/:id/${action}`, {
      schema: {
        tags,
        security,
        operationId: `${action}-preparation`,
        summary,
        description,
        params: IdParams,
        response: { 200: PREPARATION, ...bodyErrors, ...stateConflict }
      },
      onRequest: fastify.requirePrincipal
    }, async (request) => await preparations[action](callerOf(request), request.params.id))
  }

  fastify.delete('/preparations/:id', {
    schema: {
      tags,
      security,
      operationId: 'delete-preparation',
      summary: 'Delete a preparation',
      description: 'Removes the record and its files, whatever its state; a running job stops at its next step.',
      params: IdParams,
      response: { 204: Type.Null({ description: 'Deleted.' }), ...bodyErrors }
    },
    onRequest: fastify.requirePrincipal
  }, async (request, reply) => {
    await preparations.remove(callerOf(request), request.params.id)
    return reply.code(204).send(null)
  })

  for (const file of FILES) {
    fastify.get(`/preparations/:id/files/${file.path}`, {
      schema: {
        tags,
        security,
        operationId: `get-preparation-${file.path.replace(/\W+/g, '-')}`,
        summary: `Download ${file.title}`,
        description: `outputFiles.${file.field} as a file (${file.media}), to serve or copy as it is. Strong ETag; 304 on ` +
          'If-None-Match. Cache-Control is `private, no-cache`: it needs your key, so no shared cache keeps it, and it can be ' +
          'edited, so a client revalidates each time (cheaply, with the ETag).',
        params: IdParams,
        response: {
          200: { description: `${file.title} (${file.media}).`, content: { [file.media]: { schema: { type: 'string', description: file.title } } } },
          304: Type.Null({ description: 'Not modified since the ETag you sent.' }),
          ...errors,
          404: refusal('No such preparation that you manage, or the file is not ready (or, for the agent manifest, empty).',
            ['PREPARATION_NOT_FOUND', 'PREPARATION_FILE_NOT_READY', 'AGENT_MANIFEST_EMPTY'], { name: 'PreparationFileNotFound' })
        }
      },
      onRequest: fastify.requirePrincipal,
      config: { credentialedCacheControl: 'private, no-cache' }
    }, async (request, reply) => {
      const text = await preparations.file(callerOf(request), request.params.id, file.field)
      return sendCached(request, reply, cachedText(text), file.type)
    })
  }
}

export default preparationRoutes
