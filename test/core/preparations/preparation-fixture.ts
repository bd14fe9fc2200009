import { newPreparationId, WAITING } from '../../../src/core/preparations/lifecycle.js'
import type { Preparation } from '../../../src/core/preparations/schemas.js'

/** A queued record with placeholder inputs, for tests of the worker and the queues. */
export function queuedPreparation (name = 'x'): Preparation {
  const at = new Date().toISOString()
  return {
    id: newPreparationId(),
    name,
    websiteUrl: 'https://x.example/',
    businessName: 'X',
    description: 'X does x.',
    primaryServices: ['x'],
    targetAudience: '',
    notes: '',
    status: 'queued',
    ownerId: 'pub_1',
    ownerEmail: 'owner@example.com',
    createdAt: at,
    updatedAt: at,
    outputFiles: null,
    progress: WAITING,
    error: null,
    attempts: 0
  }
}

export const SILENT = { fatal () {}, error () {}, warn () {}, info () {}, debug () {}, trace () {} }

export const FILES = { llmsTxt: '# X\n', schemaOrgJsonLd: '{}', agentManifest: '', semanticSummary: '# X\n', notes: '- crawled' }
