// "Cards exact per version": for every fixture screen (fixtures/screens/*/expected.json), the
// card built from the capture the bridge would read (.ansi where the grammar wants colours) with
// the expected status, compared with the ground truth: headline, permission_mode, blocked.
// opencode's permission buttons carry no number on screen, so their index is compared as the
// contract's 0 (test/card/grammars/pi-opencode-corpus.test.ts explains the deliberate differences).
//   bun scripts/cards-exact.ts [--list]
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { blockedOf, buildCard } from '../src/card/build'
import { grammarFor } from '../src/card/registry'
import type { AgentInfo, AgentStatus } from '../src/herdr/types'

const ROOT = join(import.meta.dir, '../fixtures/screens')
const TITLE = '(title)'
const list = process.argv.includes('--list')
const tally = new Map<string, { exact: number; total: number }>()
for (const dir of readdirSync(ROOT).sort()) {
  const f = join(ROOT, dir, 'expected.json')
  if (!existsSync(f)) continue
  const e = JSON.parse(readFileSync(f, 'utf8'))
  // the corpus versions of the fixtures that predate agent_version
  const corpus: Record<string, string> = { claude: '2.1.197', pi: '0.73.1', opencode: '1.18.33', codex: '0.171.0' }
  const version = `${e.agent} ${e.agent_version ?? corpus[e.agent] ?? '?'}`
  const t = tally.get(version) ?? { exact: 0, total: 0 }
  tally.set(version, t)
  for (const [label, want] of Object.entries<any>(e.screens)) {
    // read as the bridge reads it: with its colours when the grammar wants them (Claude Code, opencode)
    // (cc-long/02-turn2-working.ansi caught a later frame than the .txt expected.json describes:
    // claude-corpus.test.ts names what that frame shows, and its card is right for it)
    const file = join(ROOT, dir, label + (grammarFor(e.agent).wantsAnsi === true ? '.ansi' : '.txt'))
    if (!existsSync(file)) continue
    const card = buildCard(
      { agent: e.agent, agent_status: want.agent_status as AgentStatus, pane_id: 'x', terminal_title_stripped: TITLE } as AgentInfo,
      readFileSync(file, 'utf8'),
    )
    let blocked = want.blocked
    // opencode's permission boxes ("Permission required", and its "Always allow" confirmation) number no button
    if (e.agent === 'opencode' && /^(?:Permission required|Always allow)$/.test(blocked?.question ?? ''))
      blocked = { ...blocked, options: blocked.options.map((o: any) => ({ ...o, index: 0 })) }
    const ok =
      card.headline === (want.headline ?? TITLE) &&
      (card.permission_mode ?? null) === (want.permission_mode ?? null) &&
      // the fingerprint also hashes context rows expected.json does not name: not compared
      JSON.stringify(card.blocked ? { ...card.blocked, fingerprint: undefined } : null) ===
        JSON.stringify(blocked ? { ...blockedOf(e.agent, blocked), fingerprint: undefined } : null)
    t.total++
    if (ok) t.exact++
    else if (list) console.log(`wrong: ${dir}/${label}`)
  }
}
for (const [v, t] of tally) console.log(`${v.padEnd(18)} ${t.exact}/${t.total} cards exact`)
