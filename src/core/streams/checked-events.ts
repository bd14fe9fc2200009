import type { BeeEvents, RegisteredBee } from '../bee.js'
import { failure } from '../errors.js'
import type { Logger } from '../logger.js'

/**
 * A stream Bee's events, each checked against its eventSchema before it goes on to `sink`: one that breaks it ends the
 * stream with BEE_EVENT_INVALID (and so a void), whoever receives the stream (its client, or its run's rows).
 */
export function checkedEvents (bee: RegisteredBee, sink: BeeEvents, log: Logger): BeeEvents {
  const { validateEvent } = bee
  return {
    data (event) {
      if (validateEvent !== null && !validateEvent(event)) {
        log.warn({ beeId: bee.record.id, errors: validateEvent.errors }, 'stream event does not match its eventSchema')
        throw failure('BEE_EVENT_INVALID', `${bee.record.id} sent an event that breaks its own eventSchema. The stream was ended; you were not charged.`)
      }
      return sink.data(event)
    },
    progress: (fraction) => sink.progress(fraction)
  }
}
