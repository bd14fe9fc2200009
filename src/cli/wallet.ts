import { loadConfig } from '../config.js'
import { walletCommand } from './wallet-command.js'

try {
  const config = loadConfig()
  process.exitCode = await walletCommand(process.argv.slice(2), {
    databaseUrl: config.DATABASE_URL,
    defaultCurrency: config.PRICE_CURRENCY,
    baseUrl: config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`,
    print: (line) => console.log(line)
  })
} catch (error) {
  console.error(`wallet: ${(error as Error).message}`)
  process.exitCode = 1
}
