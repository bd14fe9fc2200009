import type { NewRun } from '../../../src/core/ledger/runs/run-repository.js'
import { later, now } from '../../../src/core/ledger/timestamps.js'
import { newRunId } from '../../../src/core/runs/run-ids.js'

/** A queued run of the echo Bee (test/echo-bee.ts), as admission writes it; `fields` sets its hold, say. */
export const newRun = (fields: Partial<NewRun> = {}): NewRun => ({
  id: newRunId(),
  beeId: 'echo',
  ownerHash: 'owner',
  keyHash: null,
  input: { text: 'hi' },
  idempotencyKey: null,
  requestHash: null,
  holdId: null,
  requestId: 'req',
  maxRunSeconds: 60,
  createdAt: now(),
  expiresAt: later(600),
  ...fields
})
