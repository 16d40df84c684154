// pi's screen vocabulary as DATA (docs/reference/herdr-cli.md §9.4, fixtures/screens/pi-basic and
// pi-new-session, pi 0.73.1). pi draws no bullets, no frames and no done marker: every
// conversation row is indented one column, and the only structure plain text keeps is
// the blank-row spacing between components. A wording change is an edit here, not in pi.ts.
import type { DialogDrive } from '../drive'
import { seenIn } from '../seen'

export interface PiVocabulary {
  /** first row of a startup/banner group: never conversation */
  banner: RegExp[]
  /** one-row notices pi prints between turns ("✓ New session started"): a turn boundary */
  notice: RegExp[]
  /** first row of a notice block of several rows ("[compaction]" + "Compacted from N tokens …"): a turn boundary */
  noticeBlock: RegExp[]
  /**
   * the row that ends an assistant message the user stopped ("Operation aborted", "Aborted
   * after 2 retry attempts"): the turn is over, the half answer above it stays the turn's
   */
  turnEnd: RegExp[]
  /** a failed request's error, drawn in the assistant message ("Error: 529 {…}") */
  errorRow: RegExp
  /** errors pi retries by itself (its own list): the assistant carries on after one */
  retryable: RegExp
  /** pi gave up retrying (or the user cancelled the retry): the turn is over, whatever the error */
  retryGaveUp: RegExp
  /** first row of a tool box: "$ cmd" (bash), "read|write|edit|ls|find|grep <path>" */
  toolHeader: RegExp[]
  /** last rows of a tool box ("Took 0.0s", "Elapsed 3.0s", "Command exited with code 1") */
  toolFooter: RegExp[]
  /** the live loader row above the editor ("⠏ Working...", "Retrying (1/3) in 4s...") */
  spinner: RegExp
  /**
   * the editor's top rule with the loader drawn into it (pi 1.x): "── ⠼ Working ───…",
   * "── ⠇ Retrying (1/3) in 2s... (escape to cancel) ───…", only the spinner when narrow
   */
  loaderRule: RegExp
  /** pi's own advice under a failed turn ("If this looks like a pi bug, /bug sends a report …"): neither prose nor a turn boundary */
  hint: RegExp[]
  /** footer rows under the editor (cwd, token/context counters, autocomplete) */
  footer: RegExp[]
  /** the text width pi leaves unused on a row (one column of padding on each side) */
  padding: number
  /** extension dialogs (ctx.ui.confirm / select / input) drawn in the editor's place */
  dialog: {
    /** the hint row under a confirm or select list */
    selectHint: RegExp
    /** the hint row under an input field */
    inputHint: RegExp
    /** an option row: group 1 the → cursor (absent on other rows), group 2 the label */
    option: RegExp
    /** the input field row: group 1 what is typed so far */
    input: RegExp
    /** the one option an input dialog shows on the card (the field itself has no label) */
    inputLabel: string
  }
  /** how each kind of dialog is answered (DialogDrive, src/card/drive.ts) */
  drives: Record<'select' | 'input', DialogDrive>
}

// every entry below was seen in pi 0.73.1 (the corpus version); seenIn tags them
export const piVocabulary: PiVocabulary = seenIn('0.73.1', {
  banner: [
    /^\S+ not found\. Offline mode enabled/, // fd / ripgrep download notes (stderr, column 0)
    /^pi v\d+\.\d+/, // " pi v0.73.1" + key hints + "Press ctrl+o …"
    /^escape interrupt\b/,
    /^Press ctrl\+o to show\b/,
    /^Pi can explain its own features\b/,
    /^Warning: /, // "Warning: tmux extended-keys is off. …"
    /^Update available\b/i,
    // seen in pi 1.6.0 (fixtures/screens/pi160-basic): the logo rows replace " pi v0.73.1"
    /^[▀▄█ ]+\s+v\d+\.\d+/,
    /^[▀▄█ ]+\s+escape interrupt\b/,
  ],
  notice: [
    /^[✓✔]\s+\S/, // "✓ New session started"
    /^(?:New session started|Session (?:resumed|compacted|forked)\b)/,
  ],
  // seen in pi 0.73.1 (fixtures/screens/pi-compact): /compact's summary block
  noticeBlock: [/^\[compaction\]$/],
  // seen in pi 0.73.1 (fixtures/screens/pi-notices): Esc on a held stream
  turnEnd: [/^Operation aborted$/, /^Aborted after \d+ retry attempts?$/],
  errorRow: /^Error: \S/,
  // seen in pi 0.73.1 (pi-retries, pi-notices): "Error: Retry failed after 3 attempts: 529 …"
  retryGaveUp: /^Error: Retry failed after \d+ attempts?:/,
  // pi 0.73.1 agent-session.js _isRetryableError
  retryable:
    /overloaded|provider.?returned.?error|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error|internal.?error|network.?error|connection.?error|connection.?refused|connection.?lost|fetch failed|socket hang up|timed? out|timeout|terminated/i,
  toolHeader: [/^\$ \S/, /^(?:read|write|edit|ls|find|grep|bash)\s+\S/],
  toolFooter: [/^Took \d/, /^Elapsed \d/, /^Command exited with code -?\d+/, /^Command (?:aborted|timed out)\b/],
  spinner: /^[\u2800-\u28ff]\s+(?:Working|Retrying|Compacting|Thinking)\b.*(?:\.\.\.|…)/,
  // seen in pi 1.6.0 (fixtures/screens/pi160-*): custom-editor.js renderTopBorder, "── " + status + " ───"
  loaderRule: /^─{2,3} ?[\u2800-\u28ff](?: .*)?─$/,
  // seen in pi 1.6.0 (pi160-notices): once a session, muted, right under the first error that is not retried
  hint: [/^If this looks like an? \S+ bug\b/],
  footer: [/\d+(?:\.\d+)?%\/\d+k\b/, /^[↑↓]\d/, /^→ \S/],
  padding: 2,
  // pi 0.73.1, captured (fixtures/screens-answer/pi-dlg): title, message rows, then
  // " → Yes" / "   No" rows, then the hint; an input shows "> typed" instead of options
  dialog: {
    selectHint: /^\s*↑↓ navigate\b.*\benter select\b/,
    inputHint: /^\s*enter submit\b.*\bcancel\b/,
    option: /^ (?:(→) | {2})(\S.*)$/,
    input: /^>(?: (.*))?$/,
    inputLabel: 'Type an answer',
  },
  // the cursor moves with ↑/↓ and Enter picks; an input takes the text, then Enter
  drives: {
    select: { pick: { by: 'arrows' }, prev: 'up', next: 'down', confirm: 'enter' },
    input: { pick: { by: 'arrows' }, prev: 'up', next: 'down', confirm: 'enter', text: { into: 'highlighted-row' } },
  },
})
