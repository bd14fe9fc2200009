import { Type, type Static } from 'typebox'
import { shared, StringEnum } from '../schemas.js'

/**
 * The website preparation record of spec §2.5, its inputs and its outputs. Field names and types are
 * the spec's; `status`, `progress`, `error` and `attempts` are this service's own lifecycle around them.
 */

/** `bee_` and 22 base64url characters (see newPreparationId); the pattern is a little looser. */
export const PREPARATION_ID_PATTERN = '^bee_[A-Za-z0-9_-]{1,64}$'

export const PreparationId = Type.String({
  pattern: PREPARATION_ID_PATTERN,
  description: 'Identifier of the preparation record: bee_ and base64url characters.'
})

export const PreparationStatus = StringEnum(['queued', 'running', 'completed', 'failed', 'canceled'], {
  description: 'queued (waiting for a worker), running, completed (outputFiles ready), failed (see error; retry with ' +
    'POST …/retry) or canceled. See docs/preparations.md for every transition.'
})
export type PreparationStatus = Static<typeof PreparationStatus>

export const PreparationStage = StringEnum(['waiting', 'robots', 'sitemap', 'crawling', 'summarizing', 'composing', 'done'], {
  description: 'What the job is doing: waiting for a worker, reading robots.txt, reading the sitemap, crawling pages, ' +
    'summarizing, composing the output files, or done.'
})
export type PreparationStage = Static<typeof PreparationStage>

export const Progress = Type.Object({
  pagesFetched: Type.Integer({ minimum: 0, description: 'Pages fetched so far (including those skipped after fetching).' }),
  pagesPlanned: Type.Integer({ minimum: 0, description: 'Pages the crawl expects to fetch, within its page budget; grows as links are found.' }),
  stage: PreparationStage
}, { description: 'How far the job has come, for a progress bar.' })
export type Progress = Static<typeof Progress>

export const OutputFiles = Type.Object({
  completedBy: Type.String({
    format: 'email',
    description: 'E-mail address of who completed the record: the operator\'s PREPARER_EMAIL when the job completed on its ' +
      'own, the reviewing publisher\'s address when a person edited and completed it.'
  }),
  completedAt: Type.String({ format: 'date-time', description: 'When the record was completed (ISO 8601).' }),
  schemaOrgJsonLd: Type.String({
    description: 'Serialized JSON-LD document (schema.org): the business as Organization or a LocalBusiness type, its WebSite ' +
      'and one Service per primary service, linked by @id, merged with what the site already declares.'
  }),
  notes: Type.String({ description: 'What was crawled, what was skipped and why (robots.txt, size, errors), one line each.' }),
  semanticSummary: Type.String({ description: 'Markdown summary of the business, made by the text-summarizer Bee from the description and the pages\' main text.' }),
  llmsTxt: Type.String({ description: 'An llms.txt (llmstxt.org) for the site: H1 name, > summary, H2 sections of key pages, an Optional section.' }),
  agentManifest: Type.String({
    description: 'Serialized JSON of what an agent can use on the site, as found there (OpenAPI or MCP endpoints, an OpenSearch ' +
      'description, contact points, forms); the empty string when nothing machine-usable was found.'
  })
}, { description: 'The prepared files.' })
export type OutputFiles = Static<typeof OutputFiles>

export const PreparationError = Type.Object({
  code: Type.String({ description: 'Stable UPPER_SNAKE code of why the last run failed.' }),
  message: Type.String({ description: 'What went wrong, and what to do about it.' })
}, { description: 'Why the last run failed.' })
export type PreparationError = Static<typeof PreparationError>

/** What the submitter gives; every one of these may be changed with PATCH (which re-queues the job). */
export const PreparationInputFields = {
  name: Type.String({ minLength: 1, maxLength: 200, description: 'Name of this preparation.' }),
  websiteUrl: Type.String({
    maxLength: 2048,
    pattern: '^https?://[^\\s]+$',
    // Titled, like primaryServices: given by the record and both bodies, the OpenAPI document lists it once.
    title: 'WebsiteUrl',
    description: 'Address of the website: an http or https URL. Its host is where the crawl stays.'
  }),
  businessName: Type.String({ minLength: 1, maxLength: 200, description: 'Name of the business the site belongs to.' }),
  description: Type.String({ minLength: 1, maxLength: 4000, description: 'What the business does, in a few sentences.' }),
  primaryServices: Type.Array(Type.String({ minLength: 1, maxLength: 100, description: 'A service the business offers.' }), {
    minItems: 1,
    maxItems: 20,
    title: 'PrimaryServices',
    description: 'The business\'s main services; each becomes a schema.org Service.'
  }),
  targetAudience: Type.String({ maxLength: 1000, description: 'Who the business serves; may be empty.' }),
  notes: Type.String({ maxLength: 4000, description: 'Optional note of the submitter.' })
}

export const PreparationInputs = Type.Object(PreparationInputFields, { description: 'What was submitted.' })
export type PreparationInputs = Static<typeof PreparationInputs>

const NullableObject = <T extends ReturnType<typeof Type.Object>>(schema: T, description: string) =>
  Type.Unsafe<Static<T> | null>({ ...schema, nullable: true, description })

export const Preparation = shared('Preparation', Type.Object({
  id: PreparationId,
  ...PreparationInputFields,
  status: PreparationStatus,
  ownerId: Type.String({ description: 'Identifier of the owning publisher (admin for records the operator created).' }),
  ownerEmail: Type.String({ format: 'email', description: 'E-mail address of the owner.' }),
  createdAt: Type.String({ format: 'date-time', description: 'When the record was submitted (ISO 8601).' }),
  updatedAt: Type.String({ format: 'date-time', description: 'When the record last changed (ISO 8601).' }),
  outputFiles: NullableObject(OutputFiles, 'The prepared files; null until a run (or a reviewer) has produced them.'),
  progress: Progress,
  error: NullableObject(PreparationError, 'Why the last run failed; null when it did not.'),
  attempts: Type.Integer({ minimum: 0, description: 'Runs started since the record was last submitted, edited or retried.' })
}, { description: 'A website preparation record (spec §2.5).' }))
export type Preparation = Static<typeof Preparation>
