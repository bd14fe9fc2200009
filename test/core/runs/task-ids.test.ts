import { test } from 'tap'
import { hashSecret } from '../../../src/core/ledger/secrets.js'
import { taskCallerOf, taskIdOf } from '../../../src/core/runs/task-ids.js'
import { newRunKey } from '../../../src/core/runs/run-ids.js'
import { newRun } from './run-fixture.js'

const stored = () => ({ ...newRun(), status: 'queued' as const, progress: null, honey: null, error: null, attempts: 0, startedAt: null, finishedAt: null, updatedAt: '' })

test('a task id is the run id, with the run key of a run that has no owner; read back, it names the run and who asks', async (t) => {
  const run = stored()
  t.equal(taskIdOf(run, null), run.id, 'an owned run: its id alone')
  t.same(taskCallerOf(run.id, 'awt_token'), { id: run.id, caller: { tokenHash: hashSecret('awt_token'), runKey: undefined } })
  const key = newRunKey()
  const taskId = taskIdOf(run, key)
  t.equal(taskId, `${run.id}.${key}`)
  t.same(taskCallerOf(taskId, undefined), { id: run.id, caller: { tokenHash: null, runKey: key } }, 'the key the id carries finds an ownerless run')
  t.same(taskCallerOf(run.id, '').caller, { tokenHash: null, runKey: undefined }, 'an empty credential is none')
})
