// The command line: one parser for every command, errors in one line, and a
// --help that names every command and flag.
import { describe, expect, test } from 'bun:test'
import { COMMANDS, FLAGS, HELP, parseSettings, UsageError } from '../../src/cli/config'

const parse = (argv: string[], env: Record<string, string> = {}) => parseSettings(argv, { HOME: '/home/u', ...env })
const usage = (argv: string[], env: Record<string, string> = {}) => {
  try {
    parse(argv, env)
  } catch (e) {
    if (e instanceof UsageError) return e.message
    throw e
  }
  throw new Error(`no usage error for ${argv.join(' ')}`)
}

describe('commands', () => {
  test('each command and its arguments', () => {
    expect(parse([]).command).toBe('serve')
    expect(parse(['serve', '--port', '0']).port).toBe(0)
    expect(parse(['pair']).command).toBe('pair')
    expect(parse(['devices']).command).toBe('devices')
    expect(parse(['devices', 'revoke', 'dev_1'])).toMatchObject({ command: 'devices-revoke', arg: 'dev_1', args: ['dev_1'] })
    expect(parse(['service', 'install', '--no-start'])).toMatchObject({ command: 'service-install', noStart: true })
    expect(parse(['service', 'uninstall']).command).toBe('service-uninstall')
    expect(parse(['--help']).command).toBe('help')
    expect(parse(['-h', 'pair']).command).toBe('help')
    expect(parse(['help']).command).toBe('help')
    expect(parse(['--version']).command).toBe('version')
    expect(parse(['--demo'])).toMatchObject({ command: 'serve', demo: true })
  })

  test('bad command lines are one-line usage errors', () => {
    expect(usage(['frob'])).toBe('unknown command: frob')
    expect(usage(['devices', 'nope'])).toBe('unknown devices command: nope')
    expect(usage(['devices', 'revoke'])).toBe('usage: gothalo devices revoke ID')
    expect(usage(['devices', 'revoke', 'a', 'b'])).toBe('unexpected argument: b')
    expect(usage(['service'])).toBe('usage: gothalo service install | gothalo service uninstall')
    expect(usage(['service', 'restart'])).toBe('unknown service command: restart')
    expect(usage(['pair', 'now'])).toBe('unexpected argument: now')
    expect(usage(['--bogus'])).toBe('unknown flag: --bogus')
    expect(usage(['--bogus=1'])).toBe('unknown flag: --bogus')
    expect(usage(['--port'])).toBe('--port needs a value')
    expect(usage(['--host', '--port', '1'])).toBe('--host needs a value')
    expect(usage(['--demo=yes'])).toBe('--demo takes no value')
  })
})

describe('settings: flag over environment over default', () => {
  test('defaults', () => {
    expect(parse([])).toMatchObject({
      host: '127.0.0.1',
      port: 8787,
      herdr: 'herdr',
      dataDir: '/home/u/.local/share/gothalo',
      dataDirGiven: false,
      herdrTimeoutMs: 5000,
      logLevel: 'info',
      logFormat: 'text',
      demo: false,
    })
    expect(parse([]).publicUrl).toBeUndefined()
    expect(parse([], { XDG_DATA_HOME: '/x' }).dataDir).toBe('/x/gothalo')
  })

  test('every flag has its environment variable, and the flag wins', () => {
    const env = {
      GOTHALO_HOST: '127.0.0.2',
      GOTHALO_PORT: '9000',
      GOTHALO_HERDR: '/opt/herdr',
      GOTHALO_HERDR_TIMEOUT_MS: '700',
      GOTHALO_ADMIN_TOKEN: 'tok',
      GOTHALO_DATA_DIR: '/d',
      GOTHALO_PUBLIC_URL: 'https://box.tail.ts.net:5338/',
      GOTHALO_LOG_LEVEL: 'debug',
      GOTHALO_LOG_FORMAT: 'json',
    }
    expect(parse([], env)).toMatchObject({
      host: '127.0.0.2',
      port: 9000,
      herdr: '/opt/herdr',
      herdrTimeoutMs: 700,
      adminToken: 'tok',
      dataDir: '/d',
      dataDirGiven: true,
      publicUrl: 'https://box.tail.ts.net:5338',
      logLevel: 'debug',
      logFormat: 'json',
    })
    expect(parse(['--port=9001', '--log-format', 'text', '--data-dir', '/e'], env)).toMatchObject({ port: 9001, logFormat: 'text', dataDir: '/e' })
    // every flag in the table is reachable from the environment, or is a switch or one command's own option
    for (const [name, f] of Object.entries(FLAGS)) expect(f.env !== undefined || f.bool === true || f.commandOption === true).toBe(true), void name
  })

  test('--scopes, --since and --json: the command options of pair and audit', () => {
    expect(parse(['pair', '--scopes', 'read, answer'], {}).scopes).toEqual(['read', 'answer'])
    expect(parse(['pair', '--scopes', 'admin,read'], {}).scopes).toEqual(['read', 'admin'])
    expect(() => parse(['pair', '--scopes', 'root'], {})).toThrow('--scopes: unknown scope root (one of read, code, answer, type, terminal, start, admin)')
    expect(() => parse(['pair', '--scopes', ','], {})).toThrow('--scopes: name at least one of read, code, answer, type, terminal, start, admin')
    expect(parse(['audit', '--since', '2026-12-01', '--json'], {})).toMatchObject({ command: 'audit', since: Date.UTC(2026, 11, 1), json: true })
    const now = Date.now()
    const since = parse(['audit', '--since', '24h'], {}).since!
    expect(Math.abs(now - 24 * 3600_000 - since)).toBeLessThan(5000)
    expect(() => parse(['audit', '--since', 'yesterday'], {})).toThrow('bad --since: yesterday (want 2026-12-01, an ISO time, or 30m, 24h, 7d)')
  })

  test('bad values', () => {
    expect(usage(['--port', '99999'])).toBe('bad port: 99999')
    expect(usage(['--port', 'x'])).toBe('bad port: x')
    expect(usage([], { GOTHALO_PORT: '1.5' })).toBe('bad port: 1.5')
    expect(usage(['--herdr-timeout-ms', '0'])).toBe('bad herdr timeout: 0')
    expect(usage(['--log-level', 'loud'])).toBe('bad log level: loud (want error | warn | info | debug)')
    expect(usage(['--log-format', 'xml'])).toBe('bad log format: xml (want text | json)')
    expect(usage(['--public-url', 'box:5338'])).toStartWith('bad public URL: box:5338')
    expect(usage(['--public-url', 'ftp://box'])).toBe('bad public URL: ftp://box (want http or https)')
    expect(usage(['--public-url', 'https://box/#x'])).toBe('bad public URL: https://box/#x (no ?query or #fragment)')
    expect(usage(['--data-dir='])).toBe('--data-dir needs a directory')
  })
})

test('--help names every command and every flag with its environment variable', () => {
  for (const c of COMMANDS) expect(HELP).toContain(c.usage)
  for (const [name, f] of Object.entries(FLAGS)) {
    expect(HELP).toContain(`--${name}`)
    if (f.env) expect(HELP).toMatch(new RegExp(`--${name}\\b.*${f.env}`))
  }
  for (const words of ['gothalo pair', 'gothalo devices revoke ID', 'gothalo service install', 'gothalo service uninstall', 'gothalo --demo'])
    expect(HELP).toContain(words)
})
