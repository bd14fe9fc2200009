import { once } from 'node:events'
import { createServer } from 'node:http'
import { test } from 'tap'
import { beeBody, publish, publishingSetup } from '../publishing-helper.js'

interface ExportedSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attributes: Array<{ key: string, value: { stringValue?: string, intValue?: string | number } }>
}

/** A fake OTLP/HTTP collector: keeps every span POSTed to /v1/traces (the JSON encoding), with its resource's service.name. */
async function startCollector () {
  const spans: Array<ExportedSpan & { service: string }> = []
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => { body += chunk.toString() })
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        for (const resourceSpans of JSON.parse(body).resourceSpans ?? []) {
          const service = resourceSpans.resource.attributes.find((attribute: { key: string }) => attribute.key === 'service.name')?.value.stringValue
          for (const scope of resourceSpans.scopeSpans) for (const span of scope.spans) spans.push({ ...span, service })
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { spans, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => server.close() }
}

const attribute = (span: ExportedSpan, key: string) => span.attributes.find((candidate) => candidate.key === key)?.value

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const CALLER_SPAN = '00f067aa0ba902b7'

test('with a collector, a request continues the caller\'s trace and a remote Bee gets the traceparent of our client span', async (t) => {
  const collector = await startCollector()
  t.teardown(collector.close)
  const { app, fake, publisher } = await publishingSetup(t, { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'apiary-test' })
  await publish(app, publisher.headers, beeBody('shouter', fake.url))
  const response = await app.inject({
    method: 'POST',
    url: '/api/bees/shouter/execute',
    headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` },
    payload: { text: 'hello' }
  })
  t.equal(response.statusCode, 200)
  // Closing flushes the batch to the collector.
  await app.close()

  const sent = String(fake.calls.at(-1)?.headers.traceparent)
  const [, traceId, parentOfUpstream] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(sent) ?? []
  t.equal(traceId, TRACE_ID, 'the remote Bee joins the caller\'s trace')

  const spans = collector.spans.filter((span) => span.traceId === TRACE_ID)
  t.ok(spans.every((span) => span.service === 'apiary-test'), 'as OTEL_SERVICE_NAME names the service')
  const requestSpan = spans.find((span) => span.name === 'request')
  t.ok(requestSpan, 'a span for the request')
  t.equal(requestSpan?.parentSpanId, CALLER_SPAN, 'whose parent is the caller\'s span')
  t.same(attribute(requestSpan!, 'http.route'), { stringValue: '/api/bees/:id/execute' }, 'named by its route pattern')
  const upstream = spans.find((span) => span.name === 'POST shouter')
  t.ok(upstream, 'a client span for the call to the remote Bee')
  t.equal(upstream?.kind, 3, 'of kind CLIENT')
  t.equal(upstream?.spanId, parentOfUpstream, 'the publisher\'s spans hang under it')
  t.same(attribute(upstream!, 'apiary.bee.id'), { stringValue: 'shouter' })
})

test('without a collector nothing is traced and no traceparent is sent upstream', async (t) => {
  const { app, fake, publisher } = await publishingSetup(t)
  await publish(app, publisher.headers, beeBody('shouter', fake.url))
  t.equal((await app.inject({ method: 'POST', url: '/api/bees/shouter/execute', payload: { text: 'hello' } })).statusCode, 200)
  t.equal(fake.calls.at(-1)?.headers.traceparent, undefined)
})
