/** Why out/ needs a build (one line), or null when it is up to date. */
export function staleBuild(root?: string): string | null
/** Builds when out/ is stale; returns the reason it built, or null. Throws when the build fails. */
export function ensureBuild(root?: string): string | null
