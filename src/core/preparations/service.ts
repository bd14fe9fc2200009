import { failure, invalidCursor } from '../errors.js'
import type { ListRequest, PreparationChange, PreparationRepository } from '../ledger/preparations/preparation-repository.js'
import type { Page } from '../ledger/paging.js'
import { now } from '../ledger/timestamps.js'
import { owned, ownerScope } from '../ownership.js'
import type { Caller, Principal } from '../principal.js'
import type { EgressPolicy } from '../publishing/egress.js'
import { ALLOWED_FROM, submittedRecord, WAITING, type PreparationAction } from './lifecycle.js'
import type { PreparationQueue } from './queue/preparation-queue.js'
import type { OutputFiles, Preparation, PreparationInputs } from './schemas.js'
import { websiteProblem } from './website-check.js'

/** A website to prepare, as submitted. */
export type Submission = Omit<PreparationInputs, 'targetAudience' | 'notes'> & Partial<Pick<PreparationInputs, 'targetAudience' | 'notes'>>

/** The output files a person may edit. */
export type PreparedFile = 'schemaOrgJsonLd' | 'notes' | 'semanticSummary' | 'llmsTxt' | 'agentManifest'

/** A change of a record: new inputs (edit), or reviewed files (review), not both. */
export interface PreparationPatch extends Partial<PreparationInputs> {
  outputFiles?: Partial<Record<PreparedFile, string>> | undefined
}

export interface PreparationServiceOptions {
  store: PreparationRepository
  /** Told when a record is queued (submitted, edited or retried). */
  queue: Pick<PreparationQueue, 'enqueue'>
  egress: Pick<EgressPolicy, 'allows'>
  /** PREPARER_EMAIL: who the operator's own records belong to, and who completes what it reviews. */
  preparerEmail: string
}

const notFound = (id: string) => failure('PREPARATION_NOT_FOUND', `No preparation you manage has the id "${id}".`)

const wrongState = (action: PreparationAction, status: string) => failure('PREPARATION_STATE',
  `The preparation is ${status}; ${action} applies to a preparation that is ${ALLOWED_FROM[action].join(', ')}.`)

/** A reviewed file that must hold a serialized JSON object (the empty string allowed where `emptyAllowed`). */
function checkJsonObject (field: string, text: string | undefined, emptyAllowed: boolean): void {
  if (text === undefined || (emptyAllowed && text === '')) return
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw failure('OUTPUT_INVALID', `outputFiles.${field} must be serialized JSON${emptyAllowed ? ', or the empty string' : ''}.`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw failure('OUTPUT_INVALID', `outputFiles.${field} must hold a JSON object.`)
  }
}

const requeued = (at: string): Omit<PreparationChange, 'inputs'> =>
  ({ status: 'queued', outputFiles: null, error: null, attempts: 0, progress: WAITING, runAfter: at, updatedAt: at })

/**
 * Website preparation records (spec §2.5): a publisher submits its site, a worker crawls it and composes an
 * llms.txt, a schema.org JSON-LD graph, an agent manifest and a summary. Owners see and manage their own records,
 * the operator everyone's; someone else's record is not found, as if it did not exist.
 */
export class PreparationService {
  readonly #options: PreparationServiceOptions

  constructor (options: PreparationServiceOptions) {
    this.#options = options
  }

  /** Records a website to prepare and queues its job. */
  async submit ({ principal, log }: Caller, submission: Submission): Promise<Preparation> {
    this.#checkWebsite(submission.websiteUrl)
    const owner = this.#ownerOf(principal)
    const inputs = { ...submission, targetAudience: submission.targetAudience ?? '', notes: submission.notes ?? '' }
    const preparation = submittedRecord(inputs, owner, now())
    await this.#options.store.insert(preparation)
    await this.#options.queue.enqueue(preparation.id)
    log.info({ preparationId: preparation.id, ownerId: owner.id }, 'preparation queued')
    return preparation
  }

  /** The caller's records (the operator's: everyone's), a page at a time. */
  async list ({ principal }: Caller, request: Omit<ListRequest, 'ownerId'>): Promise<Page<Preparation>> {
    const listed = await this.#options.store.list({ ...request, ownerId: ownerScope(principal) })
    if (!listed.ok) throw invalidCursor()
    return { items: listed.items, nextCursor: listed.nextCursor }
  }

  async get ({ principal }: Caller, id: string): Promise<Preparation> {
    return owned(principal, await this.#options.store.get(id), () => notFound(id))
  }

  /** One of a record's output files, once produced (the agent manifest: once it holds something). */
  async file (caller: Caller, id: string, file: Exclude<PreparedFile, 'notes'>): Promise<string> {
    const preparation = await this.get(caller, id)
    const files = preparation.outputFiles
    if (files === null) {
      throw failure('PREPARATION_FILE_NOT_READY', `The preparation is ${preparation.status}: its files are not produced yet.`)
    }
    const text = files[file]
    if (text === '') {
      throw failure('AGENT_MANIFEST_EMPTY', 'The crawl found nothing machine-usable on the site (no API, MCP or ' +
        'OpenSearch link, contact point or form): there is no agent manifest to publish.')
    }
    return text
  }

  /**
   * Edits a record: new inputs queue its job again from scratch, whatever its state (a run in progress is abandoned);
   * reviewed output files replace the produced ones and complete the record, completed by the caller.
   */
  async change (caller: Caller, id: string, { outputFiles: edits, ...inputs }: PreparationPatch): Promise<Preparation> {
    const current = await this.get(caller, id)
    if (edits === undefined) return await this.#edit(caller, current, inputs)
    if (Object.keys(inputs).length > 0) {
      throw failure('PATCH_MIXED', 'Send either new inputs (which queue the job again) or outputFiles edits, not both.')
    }
    return await this.#review(caller, current, edits)
  }

  /** Queues a failed, canceled or completed record again, its attempts counted from zero. */
  async retry (caller: Caller, id: string): Promise<Preparation> {
    await this.get(caller, id)
    const retried = await this.#act(id, 'retry', requeued(now()))
    await this.#options.queue.enqueue(id)
    return retried
  }

  /** Stops a queued or running record; a running job stops at its next step. */
  async cancel (caller: Caller, id: string): Promise<Preparation> {
    await this.get(caller, id)
    return await this.#act(id, 'cancel', { status: 'canceled', updatedAt: now() })
  }

  /** Removes a record and its files, whatever its state; a running job stops at its next step. */
  async remove (caller: Caller, id: string): Promise<void> {
    await this.get(caller, id)
    if (!await this.#options.store.delete(id)) throw notFound(id)
  }

  async #edit ({ log }: Caller, current: Preparation, inputs: Partial<PreparationInputs>): Promise<Preparation> {
    const next: PreparationInputs = {
      name: inputs.name ?? current.name,
      websiteUrl: inputs.websiteUrl ?? current.websiteUrl,
      businessName: inputs.businessName ?? current.businessName,
      description: inputs.description ?? current.description,
      primaryServices: inputs.primaryServices ?? current.primaryServices,
      targetAudience: inputs.targetAudience ?? current.targetAudience,
      notes: inputs.notes ?? current.notes
    }
    this.#checkWebsite(next.websiteUrl)
    const edited = await this.#act(current.id, 'edit', { inputs: next, ...requeued(now()) })
    await this.#options.queue.enqueue(current.id)
    log.info({ preparationId: current.id }, 'preparation edited and queued again')
    return edited
  }

  async #review ({ principal, log }: Caller, current: Preparation, edits: Partial<Record<PreparedFile, string>>): Promise<Preparation> {
    checkJsonObject('schemaOrgJsonLd', edits.schemaOrgJsonLd, false)
    checkJsonObject('agentManifest', edits.agentManifest, true)
    const at = now()
    const base = current.outputFiles ?? { schemaOrgJsonLd: '{}', notes: '', semanticSummary: '', llmsTxt: '', agentManifest: '' }
    const files: OutputFiles = { ...base, ...edits, completedBy: this.#ownerOf(principal).email, completedAt: at }
    const reviewed = await this.#act(current.id, 'review', { status: 'completed', outputFiles: files, error: null, updatedAt: at })
    log.info({ preparationId: current.id }, 'preparation reviewed and completed')
    return reviewed
  }

  /** Applies an action's change when the record is in a state it applies to. */
  async #act (id: string, action: PreparationAction, change: PreparationChange): Promise<Preparation> {
    const changed = await this.#options.store.change(id, ALLOWED_FROM[action], change)
    if (changed.ok) return changed.preparation
    throw changed.reason === 'NOT_FOUND' ? notFound(id) : wrongState(action, changed.status)
  }

  /** The caller's identity as an owner: a publisher, or the operator (as PREPARER_EMAIL). */
  #ownerOf (principal: Principal): { id: string, email: string } {
    return principal.kind === 'publisher'
      ? { id: principal.publisher.id, email: principal.publisher.email }
      : { id: 'admin', email: this.#options.preparerEmail }
  }

  #checkWebsite (websiteUrl: string): void {
    const problem = websiteProblem(websiteUrl, (host) => this.#options.egress.allows(host, host))
    if (problem !== null) throw failure('WEBSITE_FORBIDDEN', problem)
  }
}
