// Compare a fresh recording with the committed fixtures: every screen of every scenario in
// RUN_ROOT (a capture.sh OUT_ROOT) is read into a card with the status expected.json gives
// its label in fixtures/screens, and the card's headline, permission_mode and blocked are
// checked against that expected.json. This is "a live run of the real binary agrees with
// the fixtures", for every agent a fixture names (claude, codex, opencode, pi): run by
// check-live.sh, or by hand:
//   bun scripts/capture/compare.ts RUN_ROOT [NAME… | AGENT/NAME…]
// A screen's "_vary" in expected.json lists patterns for what changes from run to run on
// that screen (a terminal's process id in codex's write_stdin question: "terminal \\d+"):
// matches are masked on both sides before comparing.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { blockedOf, buildCard } from '../../src/card/build'
import type { AgentInfo, AgentStatus } from '../../src/herdr/types'
import { grammarFor } from '../../src/card/registry'

const [runRoot, ...only] = process.argv.slice(2)
if (!runRoot) {
  console.error('usage: bun scripts/capture/compare.ts RUN_ROOT [NAME…]')
  process.exit(2)
}
const FIXTURES = join(import.meta.dir, '../../fixtures/screens')
/** NAME picks any RUN-NAME folder; AGENT/NAME only that agent's (cc… for claude, codex-…, opencode-…, pi-…). */
const picks = (n: string, dir: string) => {
  const slash = n.indexOf('/')
  if (slash < 0) return dir.endsWith('-' + n)
  const agent = n.slice(0, slash)
  const name = n.slice(slash + 1)
  if (name === agent) return dir === agent // opencode/opencode: the shared corpus's fixtures/screens/opencode
  return dir.endsWith('-' + name) && dir.startsWith(agent === 'claude' ? 'cc' : agent + '-')
}
const TITLE = '(title)'
let screens = 0
const wrong: string[] = []
for (const dir of readdirSync(runRoot).sort()) {
  if (only.length && !only.some((n) => picks(n, dir))) continue
  const expFile = join(FIXTURES, dir, 'expected.json')
  if (!existsSync(expFile)) {
    console.log(`${dir}: no fixture to compare with (new scenario?)`)
    continue
  }
  const expected = JSON.parse(readFileSync(expFile, 'utf8'))
  for (const [label, want] of Object.entries<any>(expected.screens)) {
    // read the screen as the bridge does: with its colours when the grammar wants them
    const ansi = join(runRoot, dir, `${label}.ansi`)
    const file = grammarFor(expected.agent).wantsAnsi === true && existsSync(ansi) ? ansi : join(runRoot, dir, `${label}.txt`)
    if (!existsSync(file)) {
      wrong.push(`${dir}/${label}: not recorded in this run`)
      continue
    }
    screens++
    const agent = {
      agent: expected.agent,
      agent_status: want.agent_status as AgentStatus,
      pane_id: 'live',
      terminal_title_stripped: TITLE,
    } as AgentInfo
    const card = buildCard(agent, readFileSync(file, 'utf8'))
    const diffs: string[] = []
    const vary: RegExp[] = (want._vary ?? []).map((p: string) => new RegExp(p, 'g'))
    const mask = (s: string | undefined | null) => (typeof s === 'string' ? vary.reduce((t, re) => t.replace(re, '…'), s) : s)
    card.headline = mask(card.headline) as string
    const headline = mask(want.headline ?? TITLE)
    if (card.headline !== headline) diffs.push(`headline ${JSON.stringify(card.headline)} ≠ ${JSON.stringify(headline)}`)
    if ((card.permission_mode ?? null) !== want.permission_mode) diffs.push(`mode ${card.permission_mode} ≠ ${want.permission_mode}`)
    // the card adds multi_select (compared) and the fingerprint (not: it also hashes the
    // dialog's context rows, which expected.json does not name)
    const blocked = want.blocked ? { ...blockedOf(expected.agent, want.blocked), fingerprint: undefined } : undefined
    const got = card.blocked ? { ...card.blocked, fingerprint: undefined } : undefined
    // unnumbered buttons (opencode's permission box) are index 0 on the card; expected.json
    // numbers them by position
    if (got && blocked && got.options.length === blocked.options.length && got.options.every((o) => o.index === 0)) {
      blocked.options = blocked.options.map((o) => ({ ...o, index: 0 }))
    }
    if (mask(JSON.stringify(got ?? null)) !== mask(JSON.stringify(blocked ?? null))) {
      diffs.push(`blocked ${JSON.stringify(got)} ≠ ${JSON.stringify(blocked)}`)
    }
    if (diffs.length) wrong.push(`${dir}/${label}: ${diffs.join('; ')}`)
  }
}
for (const w of wrong) console.log('DIFFERS ' + w)
console.log(`${screens - wrong.filter((w) => !w.endsWith('not recorded in this run')).length}/${screens} live screens agree with the fixtures' expected cards`)
process.exit(wrong.length ? 1 : 0)
