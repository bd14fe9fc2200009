import { failure } from '../errors.js'
import type { Ledger } from '../ledger/ledger.js'
import type { StoredCallback } from '../ledger/run-callbacks/run-callback-repository.js'
import type { EgressPolicy } from '../publishing/egress.js'
import { checkCallbackUrl, newCallback, type CallbackTarget, type RunService } from './service.js'
import type { RunCaller } from './task-ids.js'

export interface PushConfigsOptions {
  ledger: Ledger
  runs: Pick<RunService, 'get'>
  egress: Pick<EgressPolicy, 'check'>
}

const configNotFound = (configId: string) =>
  failure('RUN_NOT_FOUND', `The task has no push notification config "${configId.slice(0, 100)}".`)

/**
 * A2A's push notification configs of a run, set, read and deleted after it started (one given with the message is
 * written by RunService.start). Each is a run callback of its own, delivered as run webhooks are. Only the caller who
 * started the run finds its configs: anyone else's run is not found.
 */
export class PushConfigs {
  readonly #options: PushConfigsOptions

  constructor (options: PushConfigsOptions) {
    this.#options = options
  }

  /** Writes the config (in place of one of the same id): delivered once the run ends (by the queue's poll if it has ended). */
  async set (caller: RunCaller, runId: string, taskId: string, target: Required<CallbackTarget>): Promise<StoredCallback> {
    await this.#options.runs.get(caller, runId)
    await checkCallbackUrl(this.#options.egress, target.url)
    const row = { ...newCallback(runId, taskId, target), configId: target.push.configId }
    await this.#options.ledger.runCallbacks.replaceConfig(row)
    return await this.get(caller, runId, row.configId)
  }

  async list (caller: RunCaller, runId: string): Promise<StoredCallback[]> {
    await this.#options.runs.get(caller, runId)
    return await this.#options.ledger.runCallbacks.configsOf(runId)
  }

  /** The config of that id; the run's first when `configId` is undefined (A2A 0.3 allows asking so). */
  async get (caller: RunCaller, runId: string, configId: string | undefined): Promise<StoredCallback> {
    const configs = await this.list(caller, runId)
    const config = configId === undefined ? configs[0] : configs.find((one) => one.configId === configId)
    if (config === undefined) throw configNotFound(configId ?? '')
    return config
  }

  /** Deletes the config; deleting one that is gone already is no error (A2A asks for idempotence). */
  async delete (caller: RunCaller, runId: string, configId: string): Promise<void> {
    await this.#options.runs.get(caller, runId)
    await this.#options.ledger.runCallbacks.deleteConfig(runId, configId)
  }
}
