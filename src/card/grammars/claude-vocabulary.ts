// Claude Code's screen vocabulary as DATA (docs/reference/claude-code.md §8 and §8.11, fixtures cc-* =
// 2.1.197 and cc332-* = 2.1.332). Claude Code rewords its TUI often: a wording change should
// be an edit to this table, not to the parser in claude.ts. Every entry names the versions
// it was seen in (src/card/seen.ts); "ref" marks wording known only from the reference notes.
import type { DialogVocabulary } from '../dialog'
import type { DialogDrive } from '../drive'
import { seen, type Seen } from '../seen'

export interface ModeLabel {
  /** matched against the footer row's label (the text between the glyph and "on") */
  label: Seen
  mode: string
}

export interface ClaudeVocabulary {
  /** message / tool bullet at column 0 (⏺ on macOS, ● elsewhere) */
  bullet: Seen
  /** result gutter under a tool row */
  resultGutter: Seen
  /** gutter and tree glyphs in front of tool results and agent trees */
  tree: Seen
  /** the prompt glyph of the composer and of echoed user prompts */
  promptLine: Seen
  /** an echoed prompt that is a local slash command ("/compact", "/model") */
  slashCommand: Seen
  /** rows that end a live dialog's region: a bullet or an echoed prompt at column 0 */
  liveBreaker: Seen
  /** live spinner row: glyph + gerund + "…" (the verb is random) */
  spinner: Seen
  /** turn-complete / waiting rows that share the spinner glyphs ("✻ Worked for 25s") */
  statusRow: Seen
  /** a status row saying the API call is being retried: group 1 is what the card shows */
  retryRow: Seen[]
  /** result rows the CLI puts under an answer (an interrupt, a hook's message): the answer stays prose */
  proseResult: Seen[]
  /** the hint under messages typed while the agent works ("⎿  Queued · ctrl+x ctrl+s to send now"): those prompts wait, no turn starts */
  queuedHint: Seen
  /** tool call shapes after the bullet: Bash(…), Web Search("…"), github - x (MCP)(…) */
  toolCall: Seen[]
  /** bullet rows that are notices printed by the CLI, not assistant prose */
  infoRow: Seen[]
  /** rows indented under the conversation that are tool groups/status, not prose */
  toolRow: Seen[]
  /** chrome that is never transcript material (hints, tips, panels, timestamps, notices) */
  chrome: Seen[]
  /** hint text after a tool row's first line, dropped from the step ("(ctrl+o to expand)") */
  toolRowHint: Seen
  /** a tool result row that is only a key hint */
  resultHint: Seen
  /** rows pushed to the right edge are CLI notices ("◐ medium · /effort"): this many columns of indent */
  rightAligned: number
  /** Claude Code wraps prose this many columns short of the pane (2.1.28x, 2.1.332) */
  wrapSlack: number
  /** a markdown quote's bar at the start of each of its rows ("▎ text"), and where a wrap joined two */
  quoteBar: Seen
  quoteBarInside: RegExp
  /** footer rows naming the permission mode: the first group is the label */
  modeRow: Seen
  /** known labels → canonical mode names; any other label is reported raw, lowercased */
  modes: ModeLabel[]
  /** footer rows of the default mode in builds that print no label for it ("? for shortcuts") */
  defaultFooter: Seen[]
  /** the mode those rows mean */
  defaultMode: string
  /** the welcome banner's rows (2.1.197: a box; 2.1.332: the logo and the version row) */
  banner: Seen[]
  /** the top edge of a panel drawn over the composer (/status, /model, plan review): "▔▔▔" */
  panelEdge: Seen
  /** the key-hint row that closes a notice without options: "<key> to <action> · <key> to …" */
  keyHintRow: Seen
  /** a form's row of buttons side by side ("Accept    Decline"): short labels 3+ spaces apart */
  formButtons: Seen
  /** ● messages that are errors of the CLI, wrapped by the CLI narrower than the pane */
  errorNotice: Seen[]
  /** rows above a menu that are asides, never its question ("To change this later, run /theme") */
  menuAside: Seen[]
  /** a question line (a dialog's question; the last row under a rule when no dialog is whole) */
  question: Seen
  dialog: DialogVocabulary
  /** the tab row of a dialog with several questions: "←  ☐ Features  ☒ Database  ✔ Submit  →" */
  tabRow: RegExp
  /** one tab in it: group 1 the mark, group 2 the title */
  tab: RegExp
  /** the last tab that reviews the answers, not a question */
  reviewTab: RegExp
  /** how each kind of dialog is answered (DialogDrive, src/card/drive.ts), by the kind claude.ts reads */
  drives: Record<'numbered' | 'multi-select' | 'menu', DialogDrive>
}

const V197 = '2.1.197'
const BOTH = '2.1.197 2.1.332'
const V332 = '2.1.332'

export const claudeVocabulary: ClaudeVocabulary = {
  bullet: seen(BOTH, /^[●⏺]\s?/),
  resultGutter: seen(BOTH, /^\s*⎿/),
  tree: seen(BOTH, /^[\s├└│┃⎿]+/),
  promptLine: seen(BOTH, /^[❯>](?:\s|$)/),
  slashCommand: seen(BOTH, /^\/[\w:-]+(?:\s|$)/),
  liveBreaker: seen(BOTH, /^[●⏺❯]\s/),
  spinner: seen(BOTH, /^[·✢✳✶✻✽✱✲✴✵✷✸✹✺✼✾✿*+]\s+\S.*…/),
  statusRow: seen(
    BOTH,
    /^[·✢✳✶✻✽✱✲✴✵✷✸✹✺✼✾✿*+]\s+(?:\S+ for \d|Waiting for |API error · retrying|\S.*\bstill running\b|\S.* · retrying\b.* · attempt \d+\/\d+)/,
  ),
  retryRow: [
    seen(V332, /^[·✢✳✶✻✽✱✲✴✵✷✸✹✺✼✾✿*+]\s+(API error · retrying\b.*)$/),
    // any error the CLI retries: "✻ 401 invalid x-api-key · retrying in 1s · attempt 3/10"
    // "✻ Request timed out. · retrying… · attempt 1/1"
    seen(V332, /^[·✢✳✶✻✽✱✲✴✵✷✸✹✺✼✾✿*+]\s+(\S.* · retrying\b.* · attempt \d+\/\d+)$/),
    seen('ref', /^[·✢✳✶✻✽✱✲✴✵✷✸✹✺✼✾✿*+]\s+(Can't reach the API server.*Retrying in .*)$/),
  ],
  queuedHint: seen(V332, /^\s*⎿\s+Queued\b/),
  proseResult: [
    seen(BOTH, /^\s*⎿\s+Interrupted\b/),
    seen(V332, /^\s*⎿\s+\w+ says: /), // "⎿  Stop says: stop hook: session saved"
    seen(V332, /^\s*⎿\s+\w+(?::\w+)? hook\b/), // "⎿  PostToolUse:Bash hook reported a problem"
    // ExitPlanMode's result drawn under the prose that came with it (2.1.332)
    seen(V332, /^\s*⎿\s+Rejected Claude's plan\b/),
  ],
  toolCall: [
    seen(BOTH, /^[A-Za-z][\w-]*\(/), // Bash(, Write(, claude(
    seen(BOTH, /^[A-Z][\w-]*(?: [A-Z][\w-]*){1,2}\(/), // Web Search(
    seen('ref', /^[\w.-]+ - [\w.-]+ \(MCP\)\(/), // coder - coder_report_task (MCP)(
    seen(V332, /^Calling [\w.-]+…/), // "● Calling tracker…" while an MCP tool waits
  ],
  infoRow: [
    seen(BOTH, /^User (?:answered|approved|rejected|declined|denied)\b/),
    seen(V332, /^(?:Answered|Declined to answer) Claude's questions/),
    seen('ref', /^\d+ (?:agents?|tasks?|shells?) (?:finished|completed|launched|running)/),
    seen(BOTH, /^(?:Agent|Background command|Dynamic workflow|Task) ".*" (?:finished|completed|failed|stopped|killed|still running)/),
    seen('ref', /^Monitor event/),
    seen(BOTH, /^(?:Updated|Exited|Entered) plan(?: mode)?\b/),
    seen('ref', /^How is Claude doing this session\?/),
    seen('ref', /^Stop Task\b/),
    seen(BOTH, /\(ctrl\+o to expand\)$/),
    // the auto-mode notice printed as a bullet after the fullscreen renderer starts
    seen(V332, /^Auto mode lets Claude handle permission prompts automatically/),
    // printed when the auto-mode safety check cannot reach the server (a gateway, the mock)
    seen(V332, /^Auto mode can't check actions in this session\b/),
  ],
  toolRow: [
    seen(BOTH, /^(?:Thought|Thinking) for \d/),
    seen(BOTH, /\(ctrl\+o to expand\)$/),
    seen(V197, /\(ctrl\+b ctrl\+b \(twice\) to run in background\)$/),
    seen(
      BOTH,
      /^(?:Read|Reading|Searched|Searching|Listed|Listing|Ran|Running|Wrote|Writing|Edited|Editing|Fetched|Fetching|Updated|Updating|Created|Creating) \d+ \w+/,
    ),
    seen('ref', /^Running \d+ agents?…/),
    seen(BOTH, /^\d+ tasks? \(\d+ done/),
    seen(BOTH, /^[✔✓◻☐☒■□◼]\s/),
  ],
  chrome: [
    seen(BOTH, /^\s*⎿\s+Tip:/),
    seen(BOTH, /^\s*(?:Esc to cancel|Enter to (?:select|confirm)|↑\/↓ to navigate|Tab\/Arrow keys to navigate|ctrl\+g to edit)/i),
    seen(BOTH, /^\s*shift\+tab to approve/),
    seen(BOTH, /^\s{20,}\d{1,2}:\d{2} (?:AM|PM) \S+$/), // right-aligned timestamps in the ctrl+o transcript view
    seen(BOTH, /^\s*Showing detailed transcript\b/),
    seen(BOTH, /tmux focus-events off/),
    seen(BOTH, /^\s*[●◯] (?:main|general-purpose|Explore|Plan)\b.*(?:\d+s|waiting)?$/), // agents panel
    seen(BOTH, /^\s*\? for shortcuts/),
    seen(BOTH, /^\s*\(ctrl\+\w[^)]*(?:\([^)]*\))?[^)]*\)$/), // "(ctrl+o to expand)", "(ctrl+b ctrl+b (twice) to run in background)"
    seen(V332, /^▎ /), // the bar-quoted notice block at startup ("▎ Auto mode is now Claude Code's default permission mode.")
    seen(V332, /^\s*✔ Using flicker-free rendering\b/),
  ],
  toolRowHint: seen(BOTH, /\s*\(ctrl\+o to expand\)$/),
  resultHint: seen(BOTH, /^\(ctrl\+/),
  rightAligned: 40,
  wrapSlack: 2,
  quoteBar: seen(V332, /^▎ ?/),
  quoteBarInside: seen(V332, / ▎ /g),
  modeRow: seen(BOTH, /^\s*(?:⏵⏵|⏸|▶▶|▸▸|⏵|▶|⏩)\s+(.+?)\s+on\b/),
  modes: [
    { label: seen(BOTH, /^(?:auto-)?accept edits$/i), mode: 'acceptEdits' },
    { label: seen(BOTH, /^plan mode$/i), mode: 'plan' },
    { label: seen(V332, /^auto mode$/i), mode: 'auto' },
    { label: seen(BOTH, /^bypass permissions$/i), mode: 'bypassPermissions' },
    // 2.1.2xx+ names the old default mode; the contract keeps calling it default
    { label: seen(V332, /^manual mode$/i), mode: 'default' },
  ],
  defaultFooter: [seen(V197, /^\s*\? for shortcuts/), seen(V197, /^\s*ctrl\+t to (?:hide|show) tasks/), seen(V197, /^\s*← for agents/)],
  defaultMode: 'default',
  banner: [seen(V197, /^[╭│╰]/), seen(V332, /^\s*·?[▐▝▘▗▖▛▜▙▟█▀▄▌▁]+·?\s/), seen(V332, /^\s*Claude Code v\d/)],
  panelEdge: seen(BOTH, /^▔{3,}$/),
  // "Enter to stay in auto mode · shift+Tab to leave for accept edits mode and stop · Esc to cancel"
  // or the first-run notes' "Press Enter to continue"
  keyHintRow: seen(V332, /^\s*(?:(?:Enter|Esc|Tab|Space|shift\+Tab|ctrl\+\w+) to \S.*· (?:Esc|Enter) to \w+|Press Enter to continue$)/i),
  menuAside: [seen(V332, /^To change this later, run \/\w+/)],
  formButtons: seen(V332, /^[A-Z][\w']*(?: [\w']+)?(?: {3,}[A-Z][\w']*(?: [\w']+)?)+$/),
  errorNotice: [seen(V332, /^Request timed out\. /), seen(BOTH, /^API Error: \d{3}\b/)],
  question: seen(BOTH, /\?$/),
  dialog: {
    cursor: seen(BOTH, /^\s*[❯›]\s*/),
    option: seen(BOTH, /^(\s*)(?:([❯›])\s*)?(\d{1,2})\.(?:\s+|(?=\S))(\S.*)$/),
    hint: [
      seen(BOTH, /^\s*Esc to cancel\b/i),
      seen(BOTH, /^\s*Enter to (?:select|confirm)\b/i),
      seen(BOTH, /↑\/↓ to navigate|Tab\/Arrow keys to navigate/i),
      seen(BOTH, /^\s*ctrl\+g to edit\b/i),
    ],
    // hint rows under an option ("shift+tab to approve with this feedback") are not its label
    optionHint: [seen(BOTH, /^\s*shift\+tab to\b/i), seen('ref', /^\s*\(esc\)$/), seen(V332, /^\s*Notes: press n to add notes$/)],
    checkbox: seen(BOTH, /^\[([ x✔✓×])\]\s*/),
    chip: seen(BOTH, /^[☐☒✔←→\s]+/),
    // unnumbered rows that are options: "Chat about this" when a preview pane takes the
    // numbers away (the multi-select's "Next"/"Submit" row is not an option: submitFocused)
    unnumbered: seen(V332, /^\s*(?:([❯›])\s*)?(Chat about this)$/),
    // a box drawn beside the options (AskUserQuestion's preview pane): cut labels there
    beside: seen(V332, /\s{2,}[┌│└├].*$/),
    // 2.1.332 draws descriptions beside the choice: dim after " · " on permission rows ("Yes,
    // and switch to auto mode · auto mode handles …"), in an aligned column in pickers (/model),
    // where "✔" marks the current choice after its label
    describe: { column: true, separator: ' · ', currentMark: seen(V332, /\s+✔$/) },
    // a picker's title is one row; the sentence under it explains it ("Select model" / "Your pick is …")
    titleRow: true,
    // a quote bar in front of question and context rows ("│ cat > notes.md <<'EOF'")
    bar: seen(BOTH, /^\s*│\s?/),
    // a sentence ending in "?" inside a longer paragraph (folder trust: "…trust? (Like your own code …")
    questionSentence: seen(BOTH, /^(.*?\?)(?=\s|$)/),
    listItem: seen(V332, /^\s*[●⏺•→]\s/),
    sectionEdge: seen(BOTH, /^▔{3,}$/),
    // 2.1.197 and 2.1.332: AskUserQuestion's own-answer row, the plan review's feedback row
    // 2.1.332 permission prompt after Tab (amend): "1. Yes, and tell Claude what to do next"
    freeText: [seen(BOTH, /^Type something\.?$/), seen(BOTH, /^Tell Claude what to change$/), seen(V332, /^Yes, and tell Claude what to do next$/)],
    // 2.1.332 AskUserQuestion: "N. Type something." is the last row above the rule that
    // "N+1. Chat about this" follows; an answer typed into it replaces those words
    freeTextBeforeRule: true,
    // 2.1.332 multi-select: "❯    Next" under the boxes (the last tab's is "Submit")
    submitFocused: seen(V332, /^\s*[❯›]\s+(?:Next|Submit)$/),
  },
  tabRow: seen(V332, /^\s*←\s+(.*\S)\s+→\s*$/),
  tab: seen(V332, /([☐☒✔])\s+(\S(?:.*?\S)?)(?=\s{2,}[☐☒✔]|\s*$)/g),
  reviewTab: seen(V332, /^Submit$/),
  // Observed on 2.1.332 (fixtures/screens-answer/cc332-*): a digit answers a numbered
  // option at once, but on a free-text row ("Type something", "Tell Claude what to
  // change") it only moves the cursor there: the typed text replaces the row's label
  // and Enter sends it. In a multi-select form a digit ticks its box (the cursor stays)
  // and the "Next" row one Down past the last box submits the tab.
  drives: {
    numbered: { pick: { by: 'digit', acts: true }, prev: 'up', next: 'down', confirm: 'enter', text: { into: 'highlighted-row' } },
    'multi-select': {
      pick: { by: 'digit', acts: true },
      prev: 'up',
      next: 'down',
      confirm: 'enter',
      multi: { toggle: { by: 'digit' }, submit: 'after-last-box' },
    },
    // cursor-only menus (the trust dialog): arrows, then Enter
    menu: { pick: { by: 'arrows' }, prev: 'up', next: 'down', confirm: 'enter' },
  },
}
