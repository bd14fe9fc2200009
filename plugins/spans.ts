import { ServerResponse } from 'node:http'
import type { FastifyInstance, FastifySchemaCompiler, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { Spans } from '../src/core/spans.js'
import { OneLineRequestLog } from './access-log.js'

export const RESET_HEADER = 'x-bench-spans-reset'
/** The answer written by node:http (writeHead, write, end: the headers built, the socket written), by where it ran. */
export const WRITE_STEP = 'send node:http writeHead, write, end'
export const WRITE_INSIDE_STEP = `${WRITE_STEP}, inside the step that sent`

/** The request hooks, each with the position of its `done` callback. */
const REQUEST_HOOKS: Record<string, number> = {
  onRequest: 2, preParsing: 3, preValidation: 2, preHandler: 2, preSerialization: 3, onSend: 3, onResponse: 2, onError: 3, onTimeout: 2, onRequestAbort: 1
}

/** Who added a hook: the first frame of the caller outside Fastify and this file (a plugin's file, or a package). */
function site (): string {
  const frames = (new Error().stack ?? '').split('\n').slice(1)
  for (const frame of frames) {
    if (/spans\.|node_modules\/(fastify|avvio|fastify-plugin)\/|\(node:|at node:/.test(frame)) continue
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(frame)
    if (pkg !== null) return pkg[1] as string
    const file = /([^/\\]+)\.[cm]?[jt]s:\d+/.exec(frame)
    if (file !== null) return file[1] as string
  }
  return 'unknown'
}

/**
 * The bench build's per-step timing (BENCH_SPANS_FILE set; app.ts registers this first, or not at all): every
 * request hook added after it, every route's own hooks and handler, the executor's steps, the ledger's
 * repositories, node:http's writing of the answer, the access log line, and the body parser and validators of plugins registered
 * after it are timed and summed; the totals are written to BENCH_SPANS_FILE at close.
 * A request with the header X-Bench-Spans-Reset forgets what was counted (the bench sends one after its warm-up).
 * Nothing here runs in a normal build.
 */
export default fp(async (fastify, { file }: { file: string }) => {
  const spans = new Spans()
  const wrapped = new WeakSet<object>()
  const timed = <F extends (...args: never[]) => unknown>(step: string, fn: F, callbackAt?: number): F => {
    if (wrapped.has(fn)) return fn
    const timedFn = spans.timed(step, fn, callbackAt)
    wrapped.add(timedFn)
    return timedFn
  }

  /** A route's own hooks and handler, those that onRoute hooks (named by `by`) added since the last look included. */
  function timeRoute (route: RouteOptions, by: string): void {
    const options = route as unknown as Record<string, unknown>
    for (const [hook, callbackAt] of Object.entries(REQUEST_HOOKS)) {
      const hooks = options[hook]
      if (hooks === undefined) continue
      const named = (fn: (...args: never[]) => unknown) => timed(`${hook} ${by}${fn.name === '' ? '' : ` ${fn.name}`}`, fn, callbackAt)
      options[hook] = Array.isArray(hooks) ? hooks.map(named) : named(hooks as (...args: never[]) => unknown)
    }
    route.handler = timed('route handler', route.handler as (...args: never[]) => unknown) as RouteOptions['handler']
  }

  const addHook = fastify.addHook as (this: FastifyInstance, name: string, fn: (...args: never[]) => unknown) => FastifyInstance
  const patched = function (this: FastifyInstance, name: string, fn: (...args: never[]) => unknown): FastifyInstance {
    const by = site()
    const callbackAt = REQUEST_HOOKS[name]
    if (callbackAt !== undefined) return addHook.call(this, name, timed(`${name} ${by}`, fn, callbackAt))
    if (name === 'onRoute') {
      return addHook.call(this, name, function (this: unknown, route: RouteOptions) {
        (fn as (route: RouteOptions) => void).call(this, route)
        timeRoute(route, by)
      })
    }
    return addHook.call(this, name, fn)
  }
  /** A validator timed as `validate ${httpPart}`; Fastify reads a failed validation's errors from the function it was given. */
  const setValidatorCompiler = fastify.setValidatorCompiler as (this: FastifyInstance, compiler: FastifySchemaCompiler<unknown>) => FastifyInstance
  const timedValidators = function (this: FastifyInstance, compiler: FastifySchemaCompiler<unknown>): FastifyInstance {
    return setValidatorCompiler.call(this, (route) => {
      const validate = compiler(route)
      const step = `validate ${route.httpPart ?? 'unknown'}`
      const timedValidate: ReturnType<FastifySchemaCompiler<unknown>> = (data: unknown) => {
        const started = performance.now()
        try {
          return validate(data)
        } finally {
          timedValidate.errors = validate.errors
          spans.add(step, performance.now() - started)
        }
      }
      return timedValidate
    })
  }
  const addContentTypeParser = fastify.addContentTypeParser as (this: FastifyInstance, ...args: unknown[]) => FastifyInstance
  /** A body parser (its last argument), timed until it calls `done`, its third argument. */
  const timedParsers = function (this: FastifyInstance, ...args: unknown[]): FastifyInstance {
    const parser = args.at(-1)
    if (typeof parser === 'function') args[args.length - 1] = timed(`parse body ${String(args[0])}`, parser as (...a: never[]) => unknown, 2)
    return addContentTypeParser.apply(this, args)
  }
  fastify.addHook('onRoute', (route) => { timeRoute(route, 'route') })
  fastify.addHook('onRequest', (_request, _reply, done) => {
    spans.requestStarted()
    done()
  })
  fastify.addHook('onResponse', (request, reply, done) => {
    if (request.headers[RESET_HEADER] === undefined) spans.request(reply.elapsedTime)
    else spans.reset()
    done()
  })
  // Every plugin registered after this one sees this instance, or an instance whose prototype it is.
  Object.assign(fastify, { addHook: patched, setValidatorCompiler: timedValidators, addContentTypeParser: timedParsers })
  fastify.addHook('onReady', async () => {
    spans.timeMethods('execute', fastify.executor)
    for (const [name, repository] of Object.entries(fastify.ledger)) {
      if (typeof repository === 'object' && repository !== null) spans.timeMethods(`ledger ${name}`, repository)
    }
    OneLineRequestLog.prototype.requestCompleted = function (...args) {
      const started = performance.now()
      requestCompleted.apply(this, args)
      spans.add('access log line', performance.now() - started)
    }
    // A step that sends at once (a hook answering early, a handler calling send) writes inside its own span; one whose
    // answer Fastify sends after it (a handler returning the payload) does not: each write is counted where it ran.
    for (const [name, method] of Object.entries(responseWriters)) {
      Object.assign(ServerResponse.prototype, {
        [name]: function (this: ServerResponse, ...args: unknown[]) {
          const step = spans.inside ? WRITE_INSIDE_STEP : WRITE_STEP
          const started = performance.now()
          try {
            return (method as (...a: unknown[]) => unknown).apply(this, args)
          } finally {
            spans.add(step, performance.now() - started)
          }
        }
      })
    }
  })
  const { requestCompleted } = OneLineRequestLog.prototype
  const { writeHead, write, end } = ServerResponse.prototype
  const responseWriters = { writeHead, write, end }
  fastify.addHook('onClose', async () => {
    OneLineRequestLog.prototype.requestCompleted = requestCompleted
    Object.assign(ServerResponse.prototype, responseWriters)
    spans.write(file)
  })
}, { name: 'spans' })
