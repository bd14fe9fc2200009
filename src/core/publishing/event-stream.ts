import { createParser, type EventSourceMessage } from 'eventsource-parser'
import type { BeeEvents } from '../bee.js'
import { failure } from '../errors.js'

/** What a stream Bee's upstream answers with (docs/publishers.md, Stream Bees). */
export const EVENT_STREAM = 'text/event-stream'

const invalidEvent = (beeId: string, what: string) =>
  failure('BEE_EVENT_INVALID', `${beeId}'s endpoint sent ${what}. The stream was ended; you were not charged.`)

function jsonOf (beeId: string, message: EventSourceMessage): unknown {
  try {
    return JSON.parse(message.data)
  } catch {
    throw invalidEvent(beeId, `a${message.event === undefined ? 'n' : ` ${message.event}`} event that is not JSON`)
  }
}

/** Thrown when an event is longer than the cap: the proxy says it in its own words. */
export class EventTooLarge extends Error {}

/**
 * Reads a stream Bee's Server-Sent Events (parsed by eventsource-parser) and hands each to `events` as it comes,
 * waiting for each: `data` (or unnamed) events, `progress` ones (`{"progress": 0.4}`), until the `result` event, whose
 * JSON is returned (the Bee's result, for its outputSchema). A stream that ends without a result, or before its first
 * event, failed; one event longer than `maxEventBytes` is refused (EventTooLarge). Unknown event names are skipped, so a
 * publisher may send more than this contract knows.
 */
export async function readEventStream (beeId: string, body: AsyncIterable<Buffer>, events: BeeEvents, maxEventBytes: number): Promise<unknown> {
  const parsed: EventSourceMessage[] = []
  const parser = createParser({ onEvent: (message) => { parsed.push(message) } })
  const decoder = new TextDecoder()
  let pendingBytes = 0
  let delivered = 0
  for await (const chunk of body) {
    pendingBytes += chunk.length
    parser.feed(decoder.decode(chunk, { stream: true }))
    if (parsed.length > 0) pendingBytes = 0
    if (pendingBytes > maxEventBytes) throw new EventTooLarge()
    for (let message = parsed.shift(); message !== undefined; message = parsed.shift()) {
      const name = message.event ?? 'data'
      if (name === 'result') {
        if (delivered === 0) throw failure('BEE_UPSTREAM_ERROR', `${beeId}'s endpoint ended its stream before its first event. You were not charged.`)
        return jsonOf(beeId, message)
      }
      if (name === 'data') {
        await events.data(jsonOf(beeId, message))
        delivered++
      } else if (name === 'progress') {
        const { progress } = (jsonOf(beeId, message) ?? {}) as { progress?: unknown }
        if (typeof progress !== 'number' || !(progress >= 0 && progress <= 1)) throw invalidEvent(beeId, 'a progress event without a progress from 0 to 1')
        await events.progress(progress)
      }
    }
  }
  throw failure('BEE_UPSTREAM_ERROR', `${beeId}'s endpoint ended its stream without a result event. You were not charged.`)
}
