import { now } from '../../core/ledger/timestamps.js'
import type { StoredRun } from '../../core/ledger/runs/run-repository.js'
import type { RunEvents } from '../../core/runs/run-events.js'
import { META } from '../mcp/meta.js'
import { JSON_MEDIA_TYPE, TaskState } from './protocol.js'
import type { Artifact, StreamResponse } from './schemas.js'
import { runTaskOf } from './tasks.js'

/**
 * A run's task as A2A streams it (SendStreamingMessage, SubscribeToTask): the task as it is, then its updates as they
 * come, read from the run's events (any instance's worker keeps them, and tells every instance: no in-process fan-out):
 * WORKING (with "ai.apiary/progress" when the Bee says how far it is), each event of a stream Bee as an artifact of its
 * own ("event-<n>", n as GET /api/runs/{id}/events numbers it), then once the run ended the Honey's artifact and the
 * final status. The events kept before the stream began come first: a subscriber misses none. It stops when `signal`
 * aborts (the client went).
 */
export async function * taskUpdates (events: Pick<RunEvents, 'follow'>, run: StoredRun, taskId: string, contextId: string,
  signal: AbortSignal): AsyncGenerator<StreamResponse> {
  yield { task: runTaskOf(run, taskId, contextId) }
  const artifactUpdate = (artifact: Artifact): StreamResponse => ({ artifactUpdate: { taskId, contextId, artifact, append: false, lastChunk: true } })
  const working = (metadata?: Record<string, unknown>): StreamResponse =>
    ({ statusUpdate: { taskId, contextId, status: { state: TaskState.working, timestamp: now() }, ...(metadata === undefined ? {} : { metadata }) } })
  let saidWorking = run.status === 'running'
  for await (const event of events.follow(run.id, 0, signal)) {
    if (event.kind === 'end') {
      const task = runTaskOf(event.run, taskId, contextId)
      for (const artifact of task.artifacts) yield artifactUpdate(artifact)
      yield { statusUpdate: { taskId, contextId, status: task.status } }
      return
    }
    if (event.kind === 'progress') {
      saidWorking = true
      yield working({ [META.progress]: (JSON.parse(event.data) as { progress: number }).progress })
      continue
    }
    if (!saidWorking) {
      saidWorking = true
      yield working()
    }
    yield artifactUpdate({ artifactId: `event-${event.seq}`, name: 'event', parts: [{ data: JSON.parse(event.data), mediaType: JSON_MEDIA_TYPE }] })
  }
}
