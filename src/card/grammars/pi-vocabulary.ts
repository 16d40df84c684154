// pi's screen vocabulary as DATA (docs/reference/herdr-cli.md §9.4, fixtures/screens/pi-basic and
// pi-new-session, pi 0.73.1). pi draws no bullets, no frames and no done marker: every
// conversation row is indented one column, and the only structure plain text keeps is
// the blank-row spacing between components. A wording change is an edit here, not in pi.ts.

export interface PiVocabulary {
  /** first row of a startup/banner group: never conversation */
  banner: RegExp[]
  /** one-row notices pi prints between turns ("✓ New session started"): a turn boundary */
  notice: RegExp[]
  /** first row of a tool box: "$ cmd" (bash), "read|write|edit|ls|find|grep <path>" */
  toolHeader: RegExp[]
  /** last rows of a tool box ("Took 0.0s", "Elapsed 3.0s", "Command exited with code 1") */
  toolFooter: RegExp[]
  /** the live loader row above the editor ("⠏ Working...", "Retrying (1/3) in 4s...") */
  spinner: RegExp
  /** footer rows under the editor (cwd, token/context counters, autocomplete) */
  footer: RegExp[]
  /** the text width pi leaves unused on a row (one column of padding on each side) */
  padding: number
}

export const piVocabulary: PiVocabulary = {
  banner: [
    /^\S+ not found\. Offline mode enabled/, // fd / ripgrep download notes (stderr, column 0)
    /^pi v\d+\.\d+/, // " pi v0.73.1" + key hints + "Press ctrl+o …"
    /^escape interrupt\b/,
    /^Press ctrl\+o to show\b/,
    /^Pi can explain its own features\b/,
    /^Warning: /, // "Warning: tmux extended-keys is off. …"
    /^Update available\b/i,
  ],
  notice: [
    /^[✓✔]\s+\S/, // "✓ New session started"
    /^(?:New session started|Session (?:resumed|compacted|forked)\b)/,
    /^(?:Operation aborted|Aborted)\b/,
  ],
  toolHeader: [/^\$ \S/, /^(?:read|write|edit|ls|find|grep|bash)\s+\S/],
  toolFooter: [/^Took \d/, /^Elapsed \d/, /^Command exited with code -?\d+/, /^Command (?:aborted|timed out)\b/],
  spinner: /^[\u2800-\u28ff]\s+(?:Working|Retrying|Compacting|Thinking)\b.*(?:\.\.\.|…)/,
  footer: [/\d+(?:\.\d+)?%\/\d+k\b/, /^[↑↓]\d/, /^→ \S/],
  padding: 2,
}
