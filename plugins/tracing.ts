import { context, propagation, trace } from '@opentelemetry/api'
import fp from 'fastify-plugin'

/**
 * OpenTelemetry traces, off unless OTEL_EXPORTER_OTLP_ENDPOINT names a collector. On, a span per request
 * (@fastify/otel: the request, its hooks and handler, continuing an incoming `traceparent`), and a client
 * span per call to a remote Bee whose `traceparent` goes with the call (src/core/publishing/upstream-span.ts),
 * batched to the collector over OTLP/HTTP. Registered before every other plugin, so it sees every route.
 * Off, none of the SDK is loaded.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT
  if (endpoint === undefined) return
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }, { FastifyOtelInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@fastify/otel')
  ])
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.OTEL_SERVICE_NAME }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` }))]
  })
  // The process-wide tracer, context manager (AsyncLocalStorage) and W3C propagator the core's spans use.
  provider.register()
  const instrumentation = new FastifyOtelInstrumentation()
  instrumentation.setTracerProvider(provider)
  await fastify.register(instrumentation.plugin())
  // The spans of the final requests are flushed, and the process-wide registration is the app's to undo.
  fastify.addHook('onClose', async () => {
    await provider.shutdown()
    trace.disable()
    propagation.disable()
    context.disable()
  })
}, { name: 'tracing', dependencies: ['config'] })
