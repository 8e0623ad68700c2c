/** A problem with how fw was called; main prints it with the usage and exits 2. */
export class UsageError extends Error {}
