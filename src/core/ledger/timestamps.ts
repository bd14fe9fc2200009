// Timestamps are stored as ISO 8601 text, which sorts and compares in time order on both databases.
export const now = () => new Date().toISOString()
export const later = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString()
