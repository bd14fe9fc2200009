import { ApiError, beeNotFound, failure, validationFailed } from '../errors.js'
import { hashSecret } from '../ledger/secrets.js'
import type { Logger } from '../logger.js'
import { pinnedVersion } from '../pinned-version.js'
import type { RegisteredBee, Registry } from '../registry.js'
import { afterStep, type Stepped } from '../stepped.js'
import { isVerificationToken } from '../tokens/shape.js'
import type { Execution, Step } from './execution.js'

export interface Admission {
  /** The Bee, or its id to look up in the registry. */
  bee: RegisteredBee | string
  walletToken: string | undefined
  /** See ExecutionRequest.x402Payment and .resource. */
  x402Payment?: unknown
  resource?: string
  requestId: string
  log: Logger
  /** The version the caller pinned (`1`, `1.2` or `1.2.3`, see pinnedVersion); undefined: the latest. */
  version?: string | undefined
}

/**
 * First step: the Bee exists (404 before the body is even looked at), in the version the caller pinned if any, and is
 * not inactive (409).
 * A deprecated Bee is admitted; each door tells its caller so (HTTP: Deprecation and Sunset).
 * At once for a Bee loaded already (the warm path takes no promise); a promise when it is read first.
 */
export function admit (registry: Registry, admission: Admission): Stepped<Step<{ execution: Execution }>> {
  if (typeof admission.bee !== 'string') return admitted(admission.bee, admission)
  const found = registry.lookup(admission.bee)
  return afterStep(found, (bee) => admitted(bee, admission))
}

function admitted (found: RegisteredBee | undefined, admission: Admission): Stepped<Step<{ execution: Execution }>> {
  if (found === undefined) return { ok: false, error: beeNotFound(admission.bee as string) }
  if (admission.version === undefined) return execution(found, admission)
  const version = pinnedVersion(found, admission.version)
  return afterStep(version, (bee) => pinnedExecution(bee, admission))
}

const pinnedExecution = (version: RegisteredBee | ApiError, admission: Admission): Step<{ execution: Execution }> =>
  version instanceof ApiError ? { ok: false, error: version } : execution(version, admission)

function execution (bee: RegisteredBee, admission: Admission): Step<{ execution: Execution }> {
  const { id, status, statusMessage } = bee.record
  if (status === 'inactive') {
    return {
      ok: false,
      error: failure('BEE_INACTIVE', `${id} is inactive${statusMessage === null ? '' : `: ${statusMessage}`}. It cannot be executed now.`)
    }
  }
  const token = admission.walletToken
  return {
    ok: true,
    execution: {
      bee,
      requestId: admission.requestId,
      log: admission.log,
      tokenHash: token === undefined || token.length === 0 ? null : hashSecret(token),
      verificationToken: token !== undefined && isVerificationToken(token) ? token : null,
      resource: admission.resource ?? `urn:apiary:bee:${id}`,
      presentedPayment: admission.x402Payment ?? null,
      pin: admission.version ?? null,
      claim: null,
      hold: null,
      included: null,
      x402: null
    }
  }
}

/** The input against the Bee's inputSchema (HTTP's per-Bee routes have Fastify do this from the route schema). */
export function validateInput (execution: Execution, input: unknown): Step {
  const { validateInput } = execution.bee
  if (validateInput(input)) return { ok: true }
  return { ok: false, error: validationFailed(validateInput.errors ?? [], 'body', 'body') }
}
