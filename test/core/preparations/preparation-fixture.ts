import { submittedRecord } from '../../../src/core/preparations/lifecycle.js'
import type { Preparation } from '../../../src/core/preparations/schemas.js'

/** A queued record with placeholder inputs, for tests of the worker and the queues. */
export function queuedPreparation (name = 'x'): Preparation {
  const inputs = { name, websiteUrl: 'https://x.example/', businessName: 'X', description: 'X does x.', primaryServices: ['x'], targetAudience: '', notes: '' }
  return submittedRecord(inputs, { id: 'pub_1', email: 'owner@example.com' }, new Date().toISOString())
}

export const SILENT = { fatal () {}, error () {}, warn () {}, info () {}, debug () {}, trace () {} }

export const FILES = { llmsTxt: '# X\n', schemaOrgJsonLd: '{}', agentManifest: '', semanticSummary: '# X\n', notes: '- crawled' }
