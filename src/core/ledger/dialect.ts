/** The SQL dialect a store speaks, chosen once by openStore from DATABASE_URL; repositories and migrations branch on it. */
export type Dialect = 'sqlite' | 'postgres'
