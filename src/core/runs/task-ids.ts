import type { StoredRun } from '../ledger/runs/run-repository.js'
import { hashSecret } from '../ledger/secrets.js'

/*
 * A run as the task of MCP or A2A: the task id is the run id, and for a run without an owner (a free Bee called without
 * a wallet credential) the run id and its run key, since that key is all that finds such a run: the id is then the
 * capability, as HTTP's Location is. Run keys are base64url, so the first dot is the separator.
 */

/** Who asks about a run: the hash of the wallet credential they sent (if any), and the run key (if any). */
export interface RunCaller {
  tokenHash: string | null
  runKey: string | undefined
}

/** The task id of a run, with its run key when it has one to show (the answer that started it). */
export const taskIdOf = (run: Pick<StoredRun, 'id'>, runKey: string | null): string => runKey === null ? run.id : `${run.id}.${runKey}`

/** Who asks about the task `taskId`: the wallet credential sent (if any), and the run key the id carries (if any). */
export function taskCallerOf (taskId: string, walletToken: string | undefined): { id: string, caller: RunCaller } {
  const dot = taskId.indexOf('.')
  return {
    id: dot === -1 ? taskId : taskId.slice(0, dot),
    caller: {
      tokenHash: walletToken === undefined || walletToken.length === 0 ? null : hashSecret(walletToken),
      runKey: dot === -1 ? undefined : taskId.slice(dot + 1)
    }
  }
}
