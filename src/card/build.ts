// AgentInfo (herdr, authoritative status) + screen text → the GET /agent-state card.
// Pure and total: any input gives a card, never an exception.
import type { AgentInfo } from '../herdr/types'
import type { Blocked, Card, DialogReading, ScreenReading } from './card'
import { fingerprintOf } from './drive'
import { fallbackRead } from './grammars/fallback'
import { grammarFor, hasGrammar } from './registry'

const STATUS_WORDS: Record<string, string> = {
  idle: 'Idle',
  working: 'Working…',
  blocked: 'Waiting for your answer',
  done: 'Done',
  unknown: 'Unknown state',
}

const oneLine = (s: unknown): string =>
  typeof s === 'string' ? s.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').replace(/\s+/g, ' ').trim() : ''

function safeRead(kind: string | undefined, screen: string, agent: AgentInfo): ScreenReading {
  try {
    return grammarFor(kind).read(screen, agent)
  } catch {
    try {
      return { ...fallbackRead(screen), rule: 'grammar-threw>fallback' }
    } catch {
      return { headline: '', detail: '', parsed: false, rule: 'unreadable' }
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

/** The card and the grammar rule that decided it (for a wrong card: which rule fired). */
export function explainCard(agent: AgentInfo, screen: string | undefined): { card: Card; rule: string } {
  const a = (agent ?? {}) as Partial<AgentInfo>
  const kind = typeof a.agent === 'string' && a.agent ? a.agent : 'unknown'
  const status = typeof a.agent_status === 'string' ? a.agent_status : 'unknown'
  const title = oneLine(a.terminal_title_stripped) || oneLine(a.title)
  try {
    const reading: ScreenReading =
      typeof screen === 'string'
        ? safeRead(a.agent, screen, a as AgentInfo)
        : { headline: '', detail: '', parsed: hasGrammar(a.agent), rule: 'no-screen' }
    const headline = oneLine(reading.headline) || title || STATUS_WORDS[status] || status
    const card: Card = {
      pane_id: String(a.pane_id ?? ''),
      agent_kind: kind,
      agent_status: status,
      headline,
      detail: typeof reading.detail === 'string' && reading.detail ? reading.detail : headline,
      parsed: reading.parsed === true,
    }
    if (reading.permission_mode) card.permission_mode = reading.permission_mode
    // A dedicated grammar answers blocked, even when no dialog could be read
    // (options then empty); the fallback never does. The card then says
    // parsed:true, since apps are told not to rely on blocked when parsed is false.
    if (status === 'blocked' && hasGrammar(a.agent)) {
      card.blocked = blockedOf(kind, reading.blocked ?? { question: headline, options: [] }, reading.blocked ? reading.identity : undefined)
      card.parsed = true
    }
    if (reading.transcript && reading.transcript.length) card.transcript = reading.transcript
    return { card, rule: reading.rule ?? 'unnamed' }
  } catch {
    return {
      card: {
        pane_id: String(a.pane_id ?? ''),
        agent_kind: kind,
        agent_status: status,
        headline: title || STATUS_WORDS[status] || status,
        detail: '',
        parsed: false,
      },
      rule: 'build-threw',
    }
  }
}
