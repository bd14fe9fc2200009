import { parseArgs } from 'node:util'
import { balanceLimitExceeded } from '../core/errors.js'
import { openStore } from '../core/ledger/open-store.js'
import { issueWallet } from '../core/ledger/wallets/issue-wallet.js'
import { toMicros } from '../core/money.js'
import { createSignInCode, SIGN_IN_PATH, SIGN_IN_TTL_SECONDS } from '../core/oauth/sign-in.js'
import { CURRENCY_PATTERN, MAX_AMOUNT } from '../core/schemas.js'

export const USAGE = `Usage:
  npm run wallet -- create [--balance 5] [--currency USD] [--label "my agent"]
  npm run wallet -- deposit <wallet-id> --amount 5
  npm run wallet -- show <wallet-id>
  npm run wallet -- sign-in <wallet-id>   (a one-time link to the OAuth consent page's sign-in)

Works on the ledger at DATABASE_URL (default ./data/apiary.db), with no admin token:
whoever can open the database file already holds the money.`

export interface CommandEnv {
  databaseUrl: string
  defaultCurrency: string
  /** Where the service is reached (PUBLIC_BASE_URL, else http://localhost:PORT): the sign-in link's origin. */
  baseUrl: string
  print (line: string): void
}

function amountOf (raw: string | undefined, name: string): number {
  const value = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw)
  const micros = Number.isFinite(value) && value >= 0 && value <= MAX_AMOUNT ? toMicros(value) : null
  if (micros === null) throw new Error(`--${name} must be a number from 0 to ${MAX_AMOUNT} with at most 6 decimal places`)
  return micros
}

/** The wallet CLI as a function, so tests run it in-process. Returns the exit code. */
export async function walletCommand (argv: string[], env: CommandEnv): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      balance: { type: 'string' },
      amount: { type: 'string' },
      currency: { type: 'string' },
      label: { type: 'string' }
    }
  })
  const [command, walletId] = positionals
  const ledger = await openStore(env.databaseUrl)
  try {
    if (command === 'create') {
      const currency = values.currency ?? env.defaultCurrency
      if (!new RegExp(CURRENCY_PATTERN).test(currency)) throw new Error('--currency must be an ISO 4217 code such as USD')
      const issued = await issueWallet(ledger.wallets, {
        micros: values.balance === undefined ? 0 : amountOf(values.balance, 'balance'),
        currency,
        label: values.label ?? null
      })
      if (!issued.ok) throw balanceLimitExceeded()
      const { wallet } = issued
      env.print(JSON.stringify(wallet, null, 2))
      env.print(`\nexport APIARY_WALLET_TOKEN=${wallet.token}   # shown once; keep it secret`)
      return 0
    }
    if (command === 'deposit' && walletId !== undefined) {
      const micros = amountOf(values.amount, 'amount')
      if (micros === 0) throw new Error('--amount must be above 0')
      const deposited = await ledger.wallets.deposit(walletId, micros, null)
      if (!deposited.ok) throw deposited.reason === 'WALLET_NOT_FOUND' ? new Error(`no wallet has the id ${walletId}`) : balanceLimitExceeded()
      env.print(JSON.stringify(deposited.wallet, null, 2))
      return 0
    }
    if (command === 'show' && walletId !== undefined) {
      const wallet = await ledger.wallets.get(walletId)
      if (wallet === null) throw new Error(`no wallet has the id ${walletId}`)
      env.print(JSON.stringify({ ...wallet, recent: await ledger.journal.recent(walletId, 20) }, null, 2))
      return 0
    }
    if (command === 'sign-in' && walletId !== undefined) {
      if (await ledger.wallets.get(walletId) === null) throw new Error(`no wallet has the id ${walletId}`)
      const code = await createSignInCode(ledger.oauth, walletId)
      env.print(`${env.baseUrl}${SIGN_IN_PATH}?code=${code}`)
      env.print(`\nOpen it once, within ${SIGN_IN_TTL_SECONDS / 60} minutes, in the browser showing the consent page; then reload that page.`)
      return 0
    }
    env.print(USAGE)
    return 2
  } finally {
    await ledger.close()
  }
}
