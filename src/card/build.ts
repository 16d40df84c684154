// AgentInfo (herdr, authoritative status) + screen text → the GET /agent-state card.
// Pure and total: any screen gives a card, never an exception. The AgentInfo is
// herdr's, checked against its schema at the herdr edge (herdr/types.ts), or one the
// explain CLI builds: its fields are what their types say, so none is re-checked here.
import type { AgentInfo } from '../herdr/types'
import type { Blocked, Card, Decision, DialogReading, ExplainedField, Region, ScreenReading } from './card'
import { fingerprintOf } from './drive'
import { EXPLAINED_FIELDS } from './rules'
import { fallbackRead } from './grammars/fallback'
import { grammarFor, hasGrammar } from './registry'

const STATUS_WORDS: Record<string, string> = {
  idle: 'Idle',
  working: 'Working…',
  blocked: 'Waiting for your answer',
  done: 'Done',
  unknown: 'Unknown state',
}

/** A herdr string as one printable line: control characters and runs of whitespace become single spaces; not cut. */
const printableLine = (s: string | undefined): string =>
  s
    ? s
        .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
        .replace(/\s+/g, ' ')
        .trim()
    : ''

function safeRead(kind: string | undefined, screen: string, agent: AgentInfo): ScreenReading {
  try {
    return grammarFor(kind).read(screen, agent)
  } catch {
    try {
      const d = { rule: 'card.grammar-threw', why: 'the grammar failed on this screen: fallback reading' }
      return { ...fallbackRead(screen), rule: d.rule, decisions: { headline: d } }
    } catch {
      const d = { rule: 'card.grammar-threw', why: 'neither the grammar nor the fallback could read the screen' }
      return { headline: '', detail: '', parsed: false, rule: d.rule, decisions: { headline: d } }
    }
  }
}

/** The wire form of a dialog: its fingerprint and multi_select added. */
export function blockedOf(kind: string, d: DialogReading, identity?: readonly string[]): Blocked {
  const out: Blocked = {
    question: d.question,
    options: d.options,
    fingerprint: fingerprintOf(
      kind,
      d.question,
      d.options.map((o) => o.label),
      identity,
    ),
    multi_select: d.multi_select === true,
  }
  if (d.questions) out.questions = d.questions
  return out
}

/**
 * Compose the card. `screen` undefined = reading the terminal failed: the card is built
 * from what herdr said (status, title). `blocked` is set only when herdr says blocked;
 * with no readable dialog it still carries the best question and no options.
 */
export function buildCard(agent: AgentInfo, screen: string | undefined): Card {
  return explainCard(agent, screen).card
}

/** A card, the rule behind each of its fields and the screen regions the grammar found. */
export interface ExplainedCard {
  card: Card
  /** the rule ids that decided the card, headline first, comma-separated (X-Gothalo-Rule) */
  rule: string
  decisions: Partial<Record<ExplainedField, Decision>>
  regions: Region[]
}

/** The card and the rules that decided it (for a wrong card: which rule fired, and why). */
export function explainCard(agent: AgentInfo, screen: string | undefined): ExplainedCard {
  const kind = agent.agent || 'unknown'
  const status = agent.agent_status
  const title = printableLine(agent.terminal_title_stripped) || printableLine(agent.title)
  try {
    const reading: ScreenReading =
      screen !== undefined
        ? safeRead(agent.agent, screen, agent)
        : {
            headline: '',
            detail: '',
            parsed: hasGrammar(agent.agent),
            rule: 'card.no-screen',
            decisions: { headline: { rule: 'card.no-screen', why: 'the terminal could not be read' } },
          }
    const decisions: Partial<Record<ExplainedField, Decision>> = { ...reading.decisions }
    let headline = printableLine(reading.headline)
    if (!headline) {
      const before = decisions.headline ? ` (${decisions.headline.rule}: ${decisions.headline.why})` : ''
      if (title) decisions.headline = { rule: 'card.headline.title', why: `no headline from the screen${before}: herdr's task title` }
      else decisions.headline = { rule: 'card.headline.status', why: `no headline and no title${before}: the status in words` }
      headline = title || STATUS_WORDS[status] || status
    }
    const card: Card = {
      pane_id: agent.pane_id,
      agent_kind: kind,
      agent_status: status,
      headline,
      detail: typeof reading.detail === 'string' && reading.detail ? reading.detail : headline,
      parsed: reading.parsed === true,
    }
    if (card.detail === headline && !(typeof reading.detail === 'string' && reading.detail)) {
      decisions.detail = { rule: 'card.detail.headline', why: 'the grammar gave no detail: the headline' }
    }
    if (reading.permission_mode) card.permission_mode = reading.permission_mode
    // A dedicated grammar answers blocked, even when no dialog could be read
    // (options then empty); the fallback never does. The card then says
    // parsed:true, since apps are told not to rely on blocked when parsed is false.
    if (status === 'blocked' && hasGrammar(agent.agent)) {
      if (!reading.blocked) {
        decisions['blocked.question'] = { rule: 'card.blocked.no-dialog', why: 'herdr says blocked but no dialog was read: the headline, no options' }
        delete decisions['blocked.options']
      }
      card.blocked = blockedOf(kind, reading.blocked ?? { question: headline, options: [] }, reading.blocked ? reading.identity : undefined)
      card.parsed = true
    } else {
      delete decisions['blocked.question']
      delete decisions['blocked.options']
      delete decisions['blocked.questions']
    }
    if (reading.transcript?.length) card.transcript = reading.transcript
    const ids: string[] = []
    for (const f of EXPLAINED_FIELDS) {
      const id = decisions[f]?.rule
      if (id && !ids.includes(id)) ids.push(id)
    }
    return { card, rule: ids.join(', ') || 'unnamed', decisions, regions: reading.regions ?? [] }
  } catch {
    return {
      card: {
        pane_id: agent.pane_id,
        agent_kind: kind,
        agent_status: status,
        headline: title || STATUS_WORDS[status] || status,
        detail: '',
        parsed: false,
      },
      rule: 'card.build-threw',
      decisions: { headline: { rule: 'card.build-threw', why: 'building the card failed: only what herdr said' } },
      regions: [],
    }
  }
}
