import { execFileSync } from '../../spawn-sync'
import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { engineEnv } from '../../../src/host/engine-env'

const THP = '/sys/kernel/mm/transparent_hugepage/enabled'
// The kernel's mode in brackets: huge pages on request where it is [madvise] or [always].
const hugePagesOnRequest = process.platform === 'linux' && existsSync(THP) && /\[(madvise|always)\]/.test(readFileSync(THP, 'utf8'))

/** The anonymous huge pages (kB) of a Node process with that environment, once it has a 64 MB buffer. */
function hugePagesOfChild(env: NodeJS.ProcessEnv): number {
  const script =
    "const b = Buffer.alloc(64 << 20, 1); const m = require('fs').readFileSync('/proc/self/smaps_rollup', 'utf8').match(/AnonHugePages:\\s+(\\d+)/); console.log(m ? m[1] : 0, b[1])"
  return Number(execFileSync(process.execPath, ['-e', script], { env, encoding: 'utf8' }).split(' ')[0])
}

describe("the engine process's environment (engine-env.ts)", () => {
  it("asks glibc's malloc for huge pages, keeping the tunables already set and a choice already made", () => {
    expect(engineEnv({ PATH: '/bin' })).toEqual({ PATH: '/bin', GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' })
    expect(engineEnv({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }).GLIBC_TUNABLES).toBe('glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1')
    expect(engineEnv({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0' }).GLIBC_TUNABLES).toBe('glibc.malloc.hugetlb=0')
  })

  it.skipIf(!hugePagesOnRequest)('gives a child process started with it huge pages for its large blocks, as the kernel counts them', () => {
    const env = { ...process.env }
    delete env.GLIBC_TUNABLES
    expect(hugePagesOfChild(engineEnv(env))).toBeGreaterThanOrEqual(2048)
  })
})
