// A temp HOME holding real sessions of all four agents (the corpus fixtures, every
// `/home/me/` in them pointed at the temp home): what GET /sessions, the session
// socket and GET /search read in the history tests.
import { Database } from 'bun:sqlite'
import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { AgentHomes } from '../../src/transcript/source'
import { homesIn, ROOT, startBridge, tempDir, waitFor, type Bridge, type BridgeOptions } from './harness'

const FIX = join(ROOT, 'fixtures')

/** Copies a tree of session files, every `/home/me/` in them pointed at `home`. */
function copyMoved(home: string, from: string, to: string) {
  for (const e of readdirSync(from, { withFileTypes: true })) {
    const src = join(from, e.name)
    const dst = join(to, e.name.replaceAll('-home-me-', `${home.replaceAll('/', '-')}-`))
    if (e.isDirectory()) {
      mkdirSync(dst, { recursive: true })
      copyMoved(home, src, dst)
    } else if (e.name.endsWith('.jsonl')) writeFileSync(dst, readFileSync(src, 'utf8').replaceAll('/home/me/', `${home}/`))
  }
}

export interface HistoryHome {
  home: string
  homes: AgentHomes
  /** each kind's project directory, as its sessions recorded it */
  dirs: { claude: string; pi: string; codex: string; opencode: string }
  /** each file-backed kind's session file */
  files: { claude: string; pi: string; codex: string[] }
  ids: { claude: string; pi: string; codex: string[] }
}

export function historyHome(): HistoryHome {
  const home = tempDir('gothalo-history-home-')
  const homes = homesIn(home, { codexDir: join(home, '.codex') })
  copyMoved(home, join(FIX, 'claude/cc-tools-mix'), homes.claudeDir)
  copyMoved(home, join(FIX, 'pi/pi-basic'), homes.piDir)
  copyMoved(home, join(FIX, 'codex/codex-resume'), homes.codexDir!)
  const ocData = join(homes.xdgDataHome, 'opencode')
  mkdirSync(ocData, { recursive: true })
  cpSync(join(FIX, 'opencode/data/opencode'), ocData, { recursive: true })
  const db = new Database(join(ocData, 'opencode.db'))
  db.run('UPDATE session SET directory = replace(directory, ?, ?)', ['/home/me/', `${home}/`])
  db.close()
  const dirs = { claude: `${home}/cc-tools-mix/proj`, pi: `${home}/pi-basic/proj`, codex: `${home}/codex-resume/proj`, opencode: `${home}/oc/proj` }
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true })
  const ids = {
    claude: '7444533a-645f-44b8-9f33-73e27f0ddc04',
    pi: '01a23636-547f-7174-a957-02ede8b4c7f6',
    codex: ['01a23781-7033-79c3-a160-6aea19af3c18', '01a23781-9dc3-72c0-a1ce-ace7a4ebd902'],
  }
  const codexDay = join(homes.codexDir!, 'sessions/2026/12/02')
  const files = {
    claude: join(homes.claudeDir, 'projects', `${home.replaceAll('/', '-')}-cc-tools-mix-proj`, `${ids.claude}.jsonl`),
    pi: join(homes.piDir, 'sessions', `-${home.replaceAll('/', '-')}-pi-basic-proj--`, `2026-12-02T10-04-19-969Z_${ids.pi}.jsonl`),
    codex: readdirSync(codexDay)
      .sort()
      .map((f) => join(codexDay, f)),
  }
  return { home, homes, dirs, files, ids }
}

/** A pi user message record: one entry. */
export const piUserLine = (i: number, text: string) =>
  `${JSON.stringify({ type: 'message', id: `m${i}`, parentId: i > 1 ? `m${i - 1}` : null, timestamp: new Date(Date.UTC(2026, 11, 3, 0, 0, i)).toISOString(), message: { role: 'user', content: [{ type: 'text', text }], timestamp: Date.UTC(2026, 11, 3, 0, 0, i) } })}\n`

/**
 * A bridge over a history home with its search index (polled every `pollMs`),
 * resolved once the index holds every session to its end.
 */
export async function historyBridge(h: HistoryHome, o: BridgeOptions = {}, pollMs = 200): Promise<Bridge> {
  const b = await startBridge({
    homes: h.homes,
    herdrSocket: true,
    state: { panes: [] },
    ...o,
    deps: {
      projectRoots: [h.home],
      agentInstalled: () => true,
      search: { path: join(tempDir('gothalo-history-search-'), 'search.db'), startAfterMs: 0, pollMs },
      ...o.deps,
    },
  })
  await waitFor(
    async () => {
      const a = (await b.json('/search?q=zzzzzz')) as { indexed: { files: number; of: number } }
      return a.indexed.of >= 5 && a.indexed.files === a.indexed.of
    },
    20_000,
    'the index built',
  )
  return b
}
