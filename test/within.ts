/** Waits until `check` holds, looking every 20 ms up to `ms`; returns how long it took, or null when it never did. */
export async function within (ms: number, check: () => Promise<boolean>): Promise<number | null> {
  const started = Date.now()
  while (Date.now() - started < ms) {
    if (await check()) return Date.now() - started
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return await check() ? Date.now() - started : null
}
