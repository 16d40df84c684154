// A writable CLAUDE_CONFIG_DIR copied from fixtures/claude/<scenario>, and the
// pane herdr would report for one of its sessions: shared by every test that
// runs the bridge over a real captured Claude session.
import { cpSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT, claudePane } from './harness'

export interface ClaudeHome {
  /** the config dir (CLAUDE_CONFIG_DIR) */
  dir: string
  /** the first project dir under projects/ */
  proj: string
  /** the session ids in that project, sorted */
  sessions: string[]
  /** the first session's id, its file and the cwd it records */
  id: string
  file: string
  cwd: string
  /** a session's file in the project */
  fileOf: (id: string) => string
}

export function claudeHome(scenario: string): ClaudeHome {
  const dir = mkdtempSync(join(tmpdir(), 'gothalo-cc-'))
  cpSync(join(ROOT, 'fixtures/claude', scenario), dir, { recursive: true })
  const proj = join(dir, 'projects', readdirSync(join(dir, 'projects')).sort()[0]!)
  const sessions = readdirSync(proj)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => f.slice(0, -6))
    .sort()
  const fileOf = (id: string) => join(proj, `${id}.jsonl`)
  const id = sessions[0]!
  return { dir, proj, sessions, id, file: fileOf(id), cwd: cwdOf(fileOf(id)), fileOf }
}

/** The first cwd a Claude session file records. */
export function cwdOf(file: string): string {
  for (const l of readFileSync(file, 'utf8').split('\n')) {
    try {
      const o = JSON.parse(l)
      if (typeof o.cwd === 'string') return o.cwd
    } catch {}
  }
  throw new Error(`no cwd in ${file}`)
}

/** herdr's agent_session for a Claude session id. */
export const claudeSessionRef = (id: string) => ({ agent: 'claude', kind: 'id' as const, source: 'herdr:claude', value: id })

/** A Claude pane on one of the home's sessions (the first by default), as herdr reports it. */
export function paneOn(home: ClaudeHome, over: Parameters<typeof claudePane>[0] = {}, id = home.id) {
  return claudePane({ cwd: cwdOf(home.fileOf(id)), ...over, agent: { agent_session: claudeSessionRef(id) } })
}
