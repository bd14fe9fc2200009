/** The entries of a comma-separated setting (EGRESS_ALLOWLIST, CORS_ORIGINS, SECRETS_KEY_PREVIOUS), blanks ignored. */
export function commaList (text: string): string[] {
  return text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '')
}
