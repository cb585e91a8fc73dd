const HUGE_PAGES = 'glibc.malloc.hugetlb=1'

/**
 * The engine process's environment: glibc's malloc asked to back its large blocks with transparent
 * huge pages (Linux with THP in `madvise` mode; other systems ignore the variable). When
 * onnxruntime makes a session it copies each weight into fresh memory, packed for its matrix
 * products, and faulting that memory in 4 KB pages was a quarter of the time NLLB-600M's sessions
 * take (q8: 5.0 s of CPU for both, 3.7 s with huge pages; bench/HF-LARGE-RESULTS.md). Tunables
 * are read when a process starts, so they are set for the child, never in the running process.
 */
export function engineEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const tunables = env.GLIBC_TUNABLES
  if (tunables?.includes('glibc.malloc.hugetlb=')) return env
  return { ...env, GLIBC_TUNABLES: tunables ? `${tunables}:${HUGE_PAGES}` : HUGE_PAGES }
}
