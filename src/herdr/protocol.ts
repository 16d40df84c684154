// herdr's CLI and its running server must speak the same private protocol (0.8.2: 20,
// 0.9.x: 22); the CLI refuses a server of another one with `protocol_mismatch`, which
// after `herdr update` lasts until the server is restarted (docs/reference/herdr-0.9.md
// §1.2 #1). What the user must do, in words a phone and a log can show. Pure.

/** The words every mismatch report carries: what the user must do. */
export const RESTART_HERDR = 'restart the herdr server'

/**
 * herdr's `protocol_mismatch` message (`client protocol 22 is newer than server protocol
 * 20; restart the Herdr server …`, or `… is older than … upgrade the Herdr client …`) as
 * advice, with the two protocols when herdr named them.
 */
export interface MismatchAdvice {
  text: string
  client?: number
  server?: number
}

export function mismatchAdvice(herdrMessage: string): MismatchAdvice {
  const m = /client protocol (\d+) is (newer|older) than server protocol (\d+)/.exec(herdrMessage)
  if (!m) return { text: `herdr's CLI and its running server speak different protocols: ${RESTART_HERDR} (\`herdr server stop\`, then start herdr)` }
  const client = Number(m[1])
  const server = Number(m[3])
  const text =
    m[2] === 'newer'
      ? `herdr's CLI speaks protocol ${client} and its running server ${server} (herdr was updated, its server not restarted): ${RESTART_HERDR} (\`herdr server stop\`, then start herdr)`
      : `herdr's CLI speaks protocol ${client} and its running server ${server} (the CLI the bridge runs is older than the server): upgrade that CLI, or ${RESTART_HERDR} from the CLI's own version`
  return { text, client, server }
}
