// The SSH transport against a real sshd started here on 127.0.0.1 (its own host
// key, an authorized key made by the test): `gothalo machines add` over ssh://,
// the home bridge's tunnel carrying the remote's rows and requests; and an ssh
// that cannot connect (host key unknown, key refused): one log line, state
// attention with ssh's reason. Missing sshd fails (with how to install it); skipped, saying why, only where an installed sshd cannot run.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync, mkdirSync, writeFileSync, readFileSync, chmodSync } from 'node:fs'
import { join } from 'node:path'
import { userInfo } from 'node:os'
import type { Subprocess } from 'bun'
import { claudePane, startBridge, tempDir, waitFor, type Bridge } from '../support/harness'
import { runMachinesCommand } from '../../src/cli/machines'
import { parseSettings } from '../../src/cli/config'
import { writeMachines } from '../../src/machines/store'
import { startHome, type Home } from './support'

const SSHD = '/usr/sbin/sshd'
const dir = tempDir('gothalo-sshd-')
let sshd: Subprocess | undefined
let port = 0
let why: string | undefined
let remote: Bridge | undefined
const homes: Home[] = []

function keygen(path: string) {
  const r = Bun.spawnSync(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', path])
  if (r.exitCode !== 0) throw new Error(`ssh-keygen: ${r.stderr.toString()}`)
}

function freePort(): number {
  const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const p = s.port
  s.stop(true)
  return p
}

/** An ssh_config for the tests: this key, these known hosts, nothing from the user's own files. */
function clientConfig(name: string, key: string, knownHosts: string): string {
  const path = join(dir, name)
  writeFileSync(
    path,
    `Host *\n  IdentityFile ${key}\n  IdentitiesOnly yes\n  UserKnownHostsFile ${knownHosts}\n  GlobalKnownHostsFile /dev/null\n  LogLevel ERROR\n`,
  )
  return path
}

beforeAll(async () => {
  // a missing sshd fails the tests and says how to install it (.ci/run installs it); only an sshd that cannot run here is skipped
  if (!existsSync(SSHD)) throw new Error(`no ${SSHD}: install it with apt-get install -y openssh-server`)
  keygen(join(dir, 'host_key'))
  keygen(join(dir, 'client_key'))
  keygen(join(dir, 'stranger_key'))
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client_key.pub')))
  chmodSync(join(dir, 'authorized_keys'), 0o600)
  port = freePort()
  writeFileSync(
    join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitRootLogin prohibit-password',
      'StrictModes no',
      'UsePAM no',
      'AllowTcpForwarding local',
      'LogLevel ERROR',
    ].join('\n') + '\n',
  )
  // sshd wants its privilege separation directory
  try {
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 })
  } catch {}
  sshd = Bun.spawn([SSHD, '-D', '-e', '-f', join(dir, 'sshd_config')], { stdout: 'ignore', stderr: 'pipe' })
  const up = await waitFor(
    async () => {
      if (sshd!.exitCode !== null) return 'exited'
      try {
        const s = await Bun.connect({ hostname: '127.0.0.1', port, socket: { data() {} } })
        s.end()
        return 'up'
      } catch {
        return undefined
      }
    },
    10_000,
    'sshd listening',
  ).catch(() => 'timeout')
  if (up !== 'up') why = `sshd could not run here: ${sshd.exitCode !== null ? await new Response(sshd.stderr as ReadableStream).text() : up}`
  const hostPub = readFileSync(join(dir, 'host_key.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' ')
  writeFileSync(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${hostPub}\n`)
  writeFileSync(join(dir, 'empty_known_hosts'), '')
  remote = await startBridge({ herdrSocket: true, state: { panes: [claudePane({ pane_id: 'w1:p1', label: 'over ssh' })] } })
})

afterAll(async () => {
  for (const h of homes) await h.stop()
  await remote?.stop()
  sshd?.kill()
})

/** who runs the tests, as sshd knows them (os.userInfo can say `unknown` in a container) */
const user = () => Bun.spawnSync(['id', '-un']).stdout.toString().trim() || userInfo().username
const target = () => `ssh://${user()}@127.0.0.1:${port}/${new URL(remote!.base).port}`

test('machines add over ssh://, then the home bridge keeps its own tunnel: rows, requests and /machines through it', async () => {
  if (why) return console.warn(`skipped: ${why}`)
  const config = clientConfig('good_config', join(dir, 'client_key'), join(dir, 'known_hosts'))
  process.env.GOTHALO_SSH_CONFIG = config
  // the running home's tunnel: the same config, as the app's option (GOTHALO_SSH_CONFIG in the executable)
  const home = await startHome([claudePane({ pane_id: 'w1:p1' })], {}, { config })
  homes.push(home)
  const { code } = (await (await remote!.post('/pair/code', {})).json()) as { code: string }
  const lines: string[] = []
  const exit = await runMachinesCommand(
    parseSettings(['machines', 'add', 'box', target(), '--code', code, '--data-dir', home.dataDir], { HOME: '/nonexistent' }),
    (l) => lines.push(l),
  )
  delete process.env.GOTHALO_SSH_CONFIG
  expect([exit, lines]).toEqual([0, [`added box (${target()}); a running bridge picks it up within seconds`]])
  const m = await waitFor(
    async () => {
      const x = (await home.json('/machines')).machines[1]
      return x?.state === 'online' && x
    },
    20_000,
    'box online over ssh',
  )
  expect(m).toMatchObject({ id: 'box', target: target(), version: 'test', panes: 1 })
  const state = await home.json('/agent-state?pane=box/w1:p1')
  expect(state.pane_id).toBe('w1:p1')
})

test('an ssh that cannot connect: host key unknown, key refused → attention with ssh’s reason, one log line each', async () => {
  if (why) return console.warn(`skipped: ${why}`)
  for (const [name, key, known, reason] of [
    ['unknown_host', 'client_key', 'empty_known_hosts', /Host key verification failed/],
    ['refused_key', 'stranger_key', 'known_hosts', /Permission denied \(publickey\)/],
  ] as const) {
    const config = clientConfig(`${name}_config`, join(dir, key), join(dir, known))
    const home = await startHome([claudePane({ pane_id: 'w1:p1' })], {}, { config })
    homes.push(home)
    writeMachines(home.dataDir, [{ label: 'box', target: target(), device_id: 'dev_x', token: 'tok_x', added_at: 0 }])
    const m = await waitFor(
      async () => {
        const x = (await home.json('/machines')).machines[1]
        return x?.state === 'attention' && x
      },
      20_000,
      `${name}: attention`,
    )
    expect(m.error).toMatch(reason)
    expect(m.error).toStartWith('ssh: ')
    // retried with backoff, logged once
    await Bun.sleep(600) // a span for retries to happen in (not synchronisation)
    expect(home.logLines.filter((l) => l.machine === 'box' && l.state === 'attention')).toHaveLength(1)
  }
})

test("ssh's argv: a loopback forward, herdr's non-interactive options, the user and host after --", async () => {
  const { sshArgs } = await import('../../src/machines/ssh')
  const { parseTarget } = await import('../../src/machines/target')
  const t = parseTarget('ssh://me@build.example:2222/8788')
  if ('error' in t || t.kind !== 'ssh') throw new Error('not an ssh target')
  expect(sshArgs(t, 40000)).toEqual([
    '-N',
    ...[
      'BatchMode=yes',
      'NumberOfPasswordPrompts=0',
      'StrictHostKeyChecking=yes',
      'ConnectTimeout=10',
      'ConnectionAttempts=1',
      'ServerAliveInterval=15',
      'ServerAliveCountMax=4',
      'ExitOnForwardFailure=yes',
    ].flatMap((o) => ['-o', o]),
    '-L',
    '127.0.0.1:40000:127.0.0.1:8788',
    '-p',
    '2222',
    '-l',
    'me',
    '--',
    'build.example',
  ])
  expect(parseTarget('ssh://build')).toMatchObject({ host: 'build', port: 22, remotePort: 8787 })
  expect(parseTarget('ssh://build/99999')).toEqual({ error: 'bad target: ssh://build/99999 (want ssh://[user@]host[:port][/bridge-port])' })
})
