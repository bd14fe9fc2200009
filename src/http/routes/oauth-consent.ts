import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { ApiError } from '../../core/errors.js'
import { toMicros } from '../../core/money.js'
import { MCP_SCOPE, type IssuerServer } from '../../core/oauth/provider.js'
import { redeemSignInCode, SIGN_IN_PATH, SIGN_IN_TTL_SECONDS } from '../../core/oauth/sign-in.js'
import { SHARED_RESPONSE } from '../../core/publishing/shared-components.js'
import { isBeeId, MAX_AMOUNT } from '../../core/schemas.js'
import { holderOf, type TokenHolder } from '../../core/tokens/holder.js'
import { mintTokenRow } from '../../core/tokens/mint.js'
import { baseUrlOf } from '../base-url.js'
import { consentPage, type ConsentView } from '../oauth/consent-page.js'
import { acceptForms } from '../oauth/form-body.js'
import { messagePage, sendPage } from '../oauth/pages.js'

const SIGN_IN_COOKIE = 'apiary_wallet_signin'

/**
 * A page: the answer is HTML, whatever its status (a refusal is said in words on it, not in a JSON body). The
 * consent page's two operations give the same pages: each is named, so the document lists it once.
 */
const Html = (description: string, name?: string) => ({
  description,
  content: { 'text/html': { schema: { type: 'string', description, example: '<!doctype html>…', ...(name === undefined ? {} : { [SHARED_RESPONSE]: name }) } } }
})
const Params = Type.Object({ uid: Type.String({ maxLength: 64, description: 'The interaction (oidc-provider\'s uid).' }) })
const ConsentForm = Type.Object({
  csrf: Type.Optional(Type.String({ maxLength: 200, description: 'The token the page carries.' })),
  decision: Type.Optional(Type.String({ maxLength: 10, description: 'allow or deny.' })),
  wallet_key: Type.Optional(Type.String({ maxLength: 200, description: 'The wallet key (or a verification token), unless signed in by a link.' })),
  cap: Type.Optional(Type.String({ maxLength: 40, description: 'Total budget.' })),
  per_call_cap: Type.Optional(Type.String({ maxLength: 40, description: 'Most per call; empty: none.' })),
  bees: Type.Optional(Type.String({ maxLength: 7000, description: 'Bee ids, comma-separated, or all.' })),
  expires_in_days: Type.Optional(Type.String({ maxLength: 10, description: 'Days, 1 to 90.' }))
}, {
  description: 'The consent form.',
  examples: [{ csrf: 'oRoIK_CXC61eQ_GPWuWyRfLb6Ftc-vp1IiaWHnhAa8M', decision: 'allow', wallet_key: 'awt_…', cap: '1', per_call_cap: '0.01', bees: 'all', expires_in_days: '30' }]
})
type ConsentForm = Record<string, string | undefined>

interface Interaction { server: IssuerServer, uid: string, clientName: string, clientIdHost: string | null, redirectUri: URL, scope: string }

/** A refusal said in words on a page: the consent page shows it in place of the form's answer. */
class FormProblem extends Error {}

/** A refusal of the whole page (an expired interaction, a forged form): a page that says so, with its status. */
class PageRefusal extends Error {
  constructor (readonly statusCode: number, message: string) {
    super(message)
  }
}

function amount (raw: string | undefined, label: string): number {
  const value = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw.trim())
  const micros = Number.isFinite(value) && value > 0 && value <= MAX_AMOUNT ? toMicros(value) : null
  if (micros === null || micros === 0) throw new FormProblem(`${label} must be a number above 0 and at most ${MAX_AMOUNT}, with at most 6 decimal places.`)
  return micros
}

/**
 * The consent page of the authorization server (see docs/agents/oauth.md): the wallet holder signs in
 * (wallet key, or a one-time link from `npm run wallet -- sign-in`), sets the budget, and the budget
 * becomes a verification token the client's access tokens are minted from. CSRF: the form carries a
 * MAC of the interaction, the interaction cookie is SameSite, and a cross-origin Origin is refused.
 */
const consentRoutes: FastifyPluginAsync = async (fastify) => {
  const { ledger, oauth, registry, walletTokens } = fastify
  acceptForms(fastify)

  const interactionOf = async (request: FastifyRequest<{ Params: { uid: string } }>, reply: FastifyReply): Promise<Interaction> => {
    const server = await oauth.forIssuer(baseUrlOf(request))
    const details = await server.provider.interactionDetails(request.raw, reply.raw).catch(() => null)
    if (details === null || details.uid !== request.params.uid) {
      throw new PageRefusal(400, 'This connection request has expired, or was opened in another browser. Start connecting again from your MCP client.')
    }
    const clientId = String(details.params.client_id)
    const client = await server.provider.Client.find(clientId)
    return {
      server,
      uid: details.uid,
      clientName: client?.clientName ?? clientId,
      // A Client ID Metadata Document's name is self-asserted: its URL's host is what the page can vouch for (CIMD §8.5).
      clientIdHost: clientId.startsWith('https://') ? new URL(clientId).host : null,
      redirectUri: new URL(String(details.params.redirect_uri)),
      scope: String(details.params.scope ?? MCP_SCOPE)
    }
  }

  const signedInWallet = (request: FastifyRequest, server: IssuerServer): string | null => {
    const cookie = (request.headers.cookie ?? '').split(/;\s*/).find((pair) => pair.startsWith(`${SIGN_IN_COOKIE}=`))
    const [walletId, expires, mac] = (cookie?.slice(SIGN_IN_COOKIE.length + 1) ?? '').split('.')
    if (walletId === undefined || expires === undefined || mac === undefined || Number(expires) < Date.now()) return null
    return server.macValid('sign-in', `${walletId}.${expires}`, mac) ? walletId : null
  }

  const render = async (reply: FastifyReply, status: number, request: FastifyRequest, interaction: Interaction, form: ConsentForm, error: string | null) => {
    const walletId = signedInWallet(request, interaction.server)
    const wallet = walletId === null ? null : await ledger.wallets.get(walletId)
    const view: ConsentView = {
      action: request.url,
      csrf: interaction.server.mac('csrf', interaction.uid),
      clientName: interaction.clientName,
      clientIdHost: interaction.clientIdHost,
      redirectHost: interaction.redirectUri.host,
      signedInWallet: wallet?.id ?? null,
      currency: wallet?.currency ?? null,
      values: {
        cap: form.cap ?? '',
        perCallCap: form.per_call_cap ?? '',
        bees: form.bees ?? 'all',
        expiresInDays: form.expires_in_days ?? '30'
      },
      error
    }
    return await sendPage(reply, status, consentPage(view), interaction.redirectUri.origin)
  }

  const refusalPage = async (reply: FastifyReply, error: unknown) => {
    if (error instanceof PageRefusal) return await sendPage(reply, error.statusCode, messagePage('Cannot connect', error.message))
    throw error
  }

  const schema = (operationId: string, summary: string, body?: typeof ConsentForm) => ({
    tags: ['oauth'],
    operationId,
    security: [],
    summary,
    description: 'Server-rendered HTML (no script). See docs/agents/oauth.md.',
    params: Params,
    ...(body === undefined ? {} : { body }),
    response: {
      200: Html('The consent page.', 'ConsentPage'),
      303: { type: 'null', description: 'Back to the authorization server, which redirects to the client.' },
      400: Html('The request expired, or a field is wrong: the page says which, in words.', 'ConsentRefused'),
      401: Html('The wallet key or token was not accepted: the page says why.', 'ConsentUnauthorized'),
      403: Html('The form did not come from this page (CSRF), or a budget wider than the presenting token.', 'ConsentForbidden')
    }
  })

  fastify.get<{ Params: { uid: string } }>('/oauth/consent/:uid', { schema: schema('oauth-consent-page', 'The consent page: grant an MCP client a budget') }, async (request, reply) => {
    try {
      return await render(reply, 200, request, await interactionOf(request, reply), {}, null)
    } catch (error) {
      return await refusalPage(reply, error)
    }
  })

  fastify.post<{ Params: { uid: string }, Body: ConsentForm }>('/oauth/consent/:uid', { schema: schema('oauth-consent', 'Grant (or refuse) the budget', ConsentForm) }, async (request, reply) => {
    let interaction: Interaction
    try {
      interaction = await interactionOf(request, reply)
      const origin = request.headers.origin
      if ((origin !== undefined && origin !== new URL(baseUrlOf(request)).origin) || !interaction.server.macValid('csrf', interaction.uid, request.body.csrf ?? '')) {
        throw new PageRefusal(403, 'This form was not sent from the consent page. Open the consent page again and submit it from there.')
      }
    } catch (error) {
      return await refusalPage(reply, error)
    }
    const { provider } = interaction.server
    const form = request.body
    if (form.decision === 'deny') {
      const to = await provider.interactionResult(request.raw, reply.raw, { error: 'access_denied', error_description: 'The wallet holder declined.' }, { mergeWithLastSubmission: false })
      return await reply.redirect(to, 303)
    }
    try {
      const budget = await grantBudget(request, interaction, form)
      const grant = new provider.Grant({ accountId: budget.id, clientId: String((await provider.interactionDetails(request.raw, reply.raw)).params.client_id) })
      grant.addResourceScope(interaction.server.resource, MCP_SCOPE)
      // The scopes asked for (the provider checked them): mcp, and offline_access when a client asks for refresh that way.
      grant.addOIDCScope(interaction.scope)
      const grantId = await grant.save()
      request.log.info({ tokenId: budget.id, walletId: budget.walletId, client: interaction.clientName }, 'oauth budget granted')
      const to = await provider.interactionResult(request.raw, reply.raw, { login: { accountId: budget.id }, consent: { grantId } },
        { mergeWithLastSubmission: false })
      return await reply.redirect(to, 303)
    } catch (error) {
      if (error instanceof FormProblem) return await render(reply, 400, request, interaction, form, error.message)
      if (error instanceof ApiError && error.statusCode < 500) return await render(reply, error.statusCode, request, interaction, form, error.message)
      throw error
    }
  })

  /** The budget the form asks for, minted from the wallet (or narrowed from the presented token). */
  async function grantBudget (request: FastifyRequest, interaction: Interaction, form: ConsentForm) {
    const capMicros = amount(form.cap, 'Total budget')
    const perCallCapMicros = form.per_call_cap === undefined || form.per_call_cap.trim() === '' ? null : amount(form.per_call_cap, 'Most per call')
    const days = Number(form.expires_in_days)
    if (!Number.isInteger(days) || days < 1 || days > 90) throw new FormProblem('Expires after must be a whole number of days from 1 to 90.')
    const beeList = (form.bees ?? '').trim()
    const bees = beeList === '' || beeList.toLowerCase() === 'all' ? null : [...new Set(beeList.split(/[\s,]+/).filter((id) => id !== ''))]
    if (bees !== null && bees.length > 100) throw new FormProblem('Name at most 100 Bees, or all.')
    for (const id of bees ?? []) {
      if (!isBeeId(id) || await registry.lookup(id) === undefined) throw new FormProblem(`There is no Bee "${id}". Give Bee ids separated by commas, or all.`)
    }
    const now = walletTokens.keyring.now()
    const holder = await holderFor(request, interaction.server, form.wallet_key, now)
    return await mintTokenRow(ledger, holder, {
      capMicros,
      perCallCapMicros,
      expiresInSeconds: days * 24 * 3600,
      bees,
      categories: null,
      label: `OAuth: ${interaction.clientName} (${interaction.redirectUri.host})`.slice(0, 200)
    }, async (beeId) => (await registry.lookup(beeId))?.record.category, now)
  }

  async function holderFor (request: FastifyRequest, server: IssuerServer, walletKey: string | undefined, now: number): Promise<TokenHolder> {
    const walletId = signedInWallet(request, server)
    if (walletId !== null) {
      const wallet = await ledger.wallets.get(walletId)
      if (wallet !== null) return { walletId: wallet.id, currency: wallet.currency, token: null }
    }
    if (walletKey === undefined || walletKey.trim() === '') throw new FormProblem('Enter your wallet key, or sign in with a one-time link from npm run wallet -- sign-in.')
    return await holderOf(ledger, walletTokens.signer, walletKey.trim(), now)
  }

  fastify.get<{ Querystring: { code: string } }>(SIGN_IN_PATH, {
    schema: {
      tags: ['oauth'],
      operationId: 'oauth-sign-in',
      security: [],
      summary: 'Sign in to the consent page with a one-time link',
      description: 'The link `npm run wallet -- sign-in <wallet-id>` prints; good once, for 10 minutes. Sets a cookie the consent page reads.',
      querystring: Type.Object({ code: Type.String({ maxLength: 100, description: 'The one-time code.' }) }),
      response: { 200: Html('Signed in.'), 400: Html('The link is unknown, used or expired.') }
    }
  }, async (request, reply) => {
    const walletId = await redeemSignInCode(ledger.oauth, request.query.code)
    if (walletId === null) return await sendPage(reply, 400, messagePage('Link not valid', 'This sign-in link is unknown, was used already, or has expired. Run npm run wallet -- sign-in again.'))
    const server = await oauth.forIssuer(baseUrlOf(request))
    const expires = String(Date.now() + SIGN_IN_TTL_SECONDS * 1000)
    const value = `${walletId}.${expires}.${server.mac('sign-in', `${walletId}.${expires}`)}`
    const secure = baseUrlOf(request).startsWith('https:') ? '; Secure' : ''
    reply.header('set-cookie', `${SIGN_IN_COOKIE}=${value}; Path=/oauth; Max-Age=${SIGN_IN_TTL_SECONDS}; HttpOnly; SameSite=Lax${secure}`)
    return await sendPage(reply, 200, messagePage('Signed in', `You are signed in as wallet ${walletId} for 10 minutes. Go back to the consent page and reload it.`))
  })
}

export default consentRoutes
