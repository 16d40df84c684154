// `gothalo explain`: why a card says what it says. Reads a screen (a file, or a live
// herdr pane), builds the card as GET /agent-state does, and prints the card, the regions
// the grammar found and, per field, the id of the rule that decided it and the evidence
// (src/card/rules.ts). Run it when a card is wrong, or on every screen of a new version.
import { readFileSync } from 'node:fs'
import type { AgentInfo, AgentStatus } from '../herdr/types'
import { explainCard, type ExplainedCard } from '../card/build'
import { cleanScreen } from '../card/clean'
import { grammarFor, hasGrammar } from '../card/registry'
import { EXPLAINED_FIELDS } from '../card/rules'

export const EXPLAIN_HELP = `usage:
  gothalo explain --agent claude|pi|opencode|codex [--status STATUS] [--title TEXT] [--json] FILE
  gothalo explain --pane PANE_ID [--herdr PATH] [--json]

Prints the card GET /agent-state would give for a screen, the regions the agent's grammar
found on it, and which rule decided each field and why.
  FILE       a screen as text (herdr agent read, tmux capture-pane -p; colours are fine); - for stdin
  --agent    the agent kind (herdr's label)
  --status   herdr's status for the pane: idle | working | blocked | done (default: blocked when
             a dialog is on screen, else idle)
  --title    herdr's task title for the pane (the headline when the screen has none)
  --pane     read the card of a live pane from herdr instead (herdr agent get + agent read)
  --herdr    herdr executable (default: $GOTHALO_HERDR, else herdr on PATH)
  --json     print {card, rule, decisions, regions} as JSON
`

const STATUSES: readonly string[] = ['idle', 'working', 'blocked', 'done', 'unknown']

interface ExplainArgs {
  agent?: string
  status?: string
  title?: string
  pane?: string
  herdr?: string
  json: boolean
  file?: string
}

function parseArgs(argv: string[]): ExplainArgs | string {
  const out: ExplainArgs = { json: false }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined]
    const value = (): string | undefined => inline ?? argv[++i]
    switch (flag) {
      case '--agent':
      case '--status':
      case '--title':
      case '--pane':
      case '--herdr': {
        const v = value()
        if (v === undefined || v === '') return `${flag} wants a value`
        out[flag.slice(2) as 'agent' | 'status' | 'title' | 'pane' | 'herdr'] = v
        break
      }
      case '--json':
        out.json = true
        break
      case '-h':
      case '--help':
        return 'help'
      default:
        if (a.startsWith('--')) return `unknown flag ${a}`
        if (out.file !== undefined) return `one screen at a time (got ${out.file} and ${a})`
        out.file = a
    }
  }
  if (out.status !== undefined && !STATUSES.includes(out.status)) return `--status: want one of ${STATUSES.join(', ')}`
  if (out.pane !== undefined) {
    if (out.file !== undefined || out.agent !== undefined) return '--pane reads the live pane: no FILE and no --agent'
    return out
  }
  if (out.file === undefined) return 'want a FILE (or --pane PANE_ID)'
  if (out.agent === undefined) return 'want --agent claude|pi|opencode|codex (the grammar to read FILE with)'
  if (!hasGrammar(out.agent)) return `no grammar for agent "${out.agent}" (the card would be the parsed:false fallback); known: claude, pi, opencode, codex`
  return out
}

/** The herdr record a file-based explain hands to the grammar. */
export function fileAgent(kind: string, screen: string, status?: string, title?: string): AgentInfo {
  const guessed: AgentStatus = grammarFor(kind).dialog?.(cleanScreen(screen)) ? 'blocked' : 'idle'
  return {
    agent: kind,
    agent_status: (status ?? guessed) as AgentStatus,
    focused: false,
    pane_id: 'file',
    revision: 0,
    state_change_seq: 0,
    tab_id: 'file',
    terminal_id: 'file',
    workspace_id: 'file',
    ...(title !== undefined ? { terminal_title_stripped: title } : {}),
  }
}

/** The explanation as the lines a person reads. */
export function formatExplanation(e: ExplainedCard, screen: string | undefined, source: string, statusNote: string): string {
  const rows = screen === undefined ? [] : cleanScreen(screen).split('\n')
  const out: string[] = []
  out.push(`${e.card.agent_kind} card for ${source} (status ${e.card.agent_status}${statusNote})`)
  out.push('')
  out.push('card:')
  for (const l of JSON.stringify(e.card, null, 2).split('\n')) out.push('  ' + l)
  out.push('')
  out.push('regions:')
  if (!e.regions.length) out.push('  (none recognised)')
  for (const r of e.regions) {
    const first =
      rows
        .slice(r.from, r.to)
        .find((l) => l.trim())
        ?.trim() ?? ''
    out.push(`  rows ${String(r.from).padStart(3)}-${String(Math.max(r.from, r.to - 1)).padEnd(4)} ${r.name.padEnd(14)} ${first.slice(0, 60)}`)
  }
  out.push('')
  out.push('fields:')
  for (const f of EXPLAINED_FIELDS) {
    const d = e.decisions[f]
    if (!d) continue
    out.push(`  ${f.padEnd(17)} ${d.rule}`)
    out.push(`  ${''.padEnd(17)} ${d.why}`)
  }
  out.push('')
  out.push(`X-Gothalo-Rule: ${e.rule}`)
  return out.join('\n') + '\n'
}

export interface ExplainIO {
  out: (s: string) => void
  err: (s: string) => void
  readFile: (path: string) => string
  env: Record<string, string | undefined>
}

/** `gothalo explain …` (argv after "explain"); returns the exit code. */
export async function explainMain(argv: string[], io: ExplainIO): Promise<number> {
  const args = parseArgs(argv)
  if (args === 'help') {
    io.out(EXPLAIN_HELP)
    return 0
  }
  if (typeof args === 'string') {
    io.err(`gothalo explain: ${args}\n${EXPLAIN_HELP}`)
    return 2
  }
  if (args.pane !== undefined) return explainPane(args, args.pane, io)
  let screen: string
  try {
    screen = io.readFile(args.file!)
  } catch (e) {
    io.err(`gothalo explain: cannot read ${args.file}: ${(e as Error).message}\n`)
    return 1
  }
  const agent = fileAgent(args.agent!, screen, args.status, args.title)
  const e = explainCard(agent, screen)
  if (args.json) io.out(JSON.stringify({ card: e.card, rule: e.rule, decisions: e.decisions, regions: e.regions }, null, 2) + '\n')
  else io.out(formatExplanation(e, screen, args.file!, args.status === undefined ? ', assumed from the screen: pass --status' : ''))
  return 0
}

async function explainPane(args: ExplainArgs, pane: string, io: ExplainIO): Promise<number> {
  const { createHerdrClient } = await import('../herdr/client')
  const herdr = createHerdrClient({ bin: args.herdr ?? (io.env.GOTHALO_HERDR || 'herdr'), timeoutMs: 5000 })
  let agent: AgentInfo
  try {
    agent = await herdr.agentGet(pane)
  } catch (e) {
    io.err(`gothalo explain: herdr agent get ${pane}: ${(e as Error).message}\n`)
    return 1
  }
  let screen: string | undefined
  try {
    const ansi = grammarFor(agent.agent).wantsAnsi === true
    screen = await herdr.agentRead(pane, ansi ? { source: 'visible', ansi } : { source: 'visible' })
  } catch (e) {
    io.err(`gothalo explain: herdr agent read ${pane} failed (${(e as Error).message}); the card is built without the screen\n`)
  }
  const e = explainCard(agent, screen)
  if (args.json) io.out(JSON.stringify({ card: e.card, rule: e.rule, decisions: e.decisions, regions: e.regions }, null, 2) + '\n')
  else io.out(formatExplanation(e, screen, `pane ${pane}`, ', from herdr'))
  return 0
}

/** The command as main.ts runs it. */
export function runExplain(argv: string[]): Promise<number> {
  return explainMain(argv, {
    out: (s) => process.stdout.write(s),
    err: (s) => process.stderr.write(s),
    readFile: (p) => readFileSync(p === '-' ? 0 : p, 'utf8'),
    env: process.env,
  })
}
