import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'

const tracer = trace.getTracer('apiary')

/**
 * Runs a call to a remote Bee in a client span, with the W3C trace context (`traceparent`) of that span
 * in `headers`, so a publisher's own spans join the caller's trace. Without a tracer provider (tracing
 * off) the API is a no-op: no span, no header.
 */
export async function inUpstreamSpan<T> (beeId: string, endpoint: string, call: (headers: Record<string, string>) => Promise<T>, method = 'POST'): Promise<T> {
  return await tracer.startActiveSpan(`${method} ${beeId}`, {
    kind: SpanKind.CLIENT,
    attributes: { 'http.request.method': method, 'url.full': endpoint, 'apiary.bee.id': beeId }
  }, async (span) => {
    const headers: Record<string, string> = {}
    propagation.inject(context.active(), headers)
    try {
      return await call(headers)
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message })
      throw error
    } finally {
      span.end()
    }
  })
}
