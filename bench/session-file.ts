// What the codex and pi transcript benches share: a large session file grown from a
// kind's real lines, the herdr record of the pane that runs it, and the timed
// resolve + newest page both measure, cold (fresh processes) and warm. One copy, so
// both kinds are measured alike.
import { appendFileSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { AgentInfo } from '../src/herdr/types'
import type { Resolved, TranscriptSource } from '../src/transcript/source'
import { freshFloor } from './floor'

export const ms = (t0: number) => performance.now() - t0

/**
 * Writes `header`, then copies of the session's body (copy k is `copyOf(k)`, its lines
 * given fresh ids) until the file holds `bytes`. A file already about that size is
 * kept, so a rerun does not write it again.
 */
export function growSession(path: string, bytes: number, header: string, copyOf: (k: number) => string): void {
  if (existsSync(path) && Math.abs(statSync(path).size - bytes) < bytes * 0.05) return
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, header + '\n')
  let size = statSync(path).size
  for (let k = 0; size < bytes; k++) {
    const chunk = copyOf(k) + '\n'
    appendFileSync(path, chunk)
    size += Buffer.byteLength(chunk)
  }
}

/** The pane herdr reports for an agent of `kind` in `cwd` on the given session. */
export const sessionAgent = (kind: string, cwd: string, session: { kind: 'id' | 'path'; value: string }) =>
  ({ pane_id: 'w1:p1', agent: kind, agent_status: 'idle', cwd, agent_session: { agent: kind, source: `herdr:${kind}`, ...session } }) as AgentInfo

/** Resolves the pane's transcript and reads its newest 150 entries, timed together. */
export async function resolveAndPage(source: TranscriptSource, agent: AgentInfo): Promise<{ ms: number; r: Resolved; page: number }> {
  const t0 = performance.now()
  const r = await source.resolve(agent, {})
  if (!r.ok) throw new Error(`resolve failed: ${r.body}`)
  const total = r.timeline.total()
  const page = await r.timeline.read(Math.max(1, total - 149), total)
  return { ms: ms(t0), r, page: page.length }
}

/**
 * Runs `script --cold root` in `n` fresh processes, one after another: each resolves and
 * reads the newest page with nothing cached, and prints its figures as its last line.
 * Each follows a run of the floor over `floorPath` in a fresh process (freshFloor), so
 * both meet the same JIT, the same fresh heap and the same load: the cold figure's floor.
 */
export async function coldRuns<T>(script: string, root: string, floorPath: string, n = 3): Promise<{ runs: T[]; freshFloors: number[] }> {
  const runs: T[] = []
  const freshFloors: number[] = []
  for (let i = 0; i < n; i++) {
    freshFloors.push(await freshFloor(floorPath))
    const child = Bun.spawn([process.execPath, script, '--cold', root], { stdout: 'pipe', stderr: 'inherit' })
    const last = JSON.parse((await new Response(child.stdout).text()).trim().split('\n').pop()!)
    if ((await child.exited) !== 0) throw new Error('cold child failed')
    runs.push(last)
  }
  return { runs, freshFloors }
}

/** `n` re-resolves + newest page on a source that already holds the index: their times. */
export async function warmRuns(source: TranscriptSource, agent: AgentInfo, n = 5): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    const w = await resolveAndPage(source, agent)
    out.push(w.ms)
    w.r.timeline.release()
  }
  return out
}
