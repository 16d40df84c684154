// A stand-in for the `tailscale` CLI, for `gothalo expose`'s tests: `status --json`,
// `serve status --json`, `serve --bg --https=<port> <target>` and `serve --https=<port> off`,
// with the real program's JSON shapes (trimmed to what matters), exit codes and the
// stderr of a user who is not the operator. State in $FAKE_TS_STATE; calls logged to $FAKE_TS_LOG.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs'

export interface FakeTailscale {
  /** BackendState: Running, NeedsLogin, Stopped */
  state: string
  dns: string
  /** HTTPS certificates on for the tailnet */
  certs: boolean
  /** `serve` refused: this user is not the operator */
  deny?: boolean
  serve: { TCP?: Record<string, { HTTPS: boolean }>; Web?: Record<string, { Handlers: Record<string, { Proxy: string }> }> }
}

const argv = process.argv.slice(2)
const statePath = process.env.FAKE_TS_STATE!
if (process.env.FAKE_TS_LOG) appendFileSync(process.env.FAKE_TS_LOG, JSON.stringify(argv) + '\n')
const s = JSON.parse(readFileSync(statePath, 'utf8')) as FakeTailscale
const save = () => writeFileSync(statePath, JSON.stringify(s))
const out = (o: unknown) => process.stdout.write(JSON.stringify(o, null, '\t') + '\n')

if (argv[0] === 'status' && argv[1] === '--json') {
  out({
    Version: '1.90.4-t1234',
    BackendState: s.state,
    Self: { HostName: s.dns.split('.')[0], DNSName: s.state === 'Running' ? `${s.dns}.` : '', Online: s.state === 'Running' },
    MagicDNSSuffix: s.dns.split('.').slice(1).join('.'),
    CertDomains: s.state === 'Running' && s.certs ? [s.dns] : null,
  })
  process.exit(0)
}
if (argv[0] === 'serve' && argv[1] === 'status' && argv[2] === '--json') {
  out(s.serve)
  process.exit(0)
}
if (argv[0] === 'serve') {
  const https = argv.find((a) => a.startsWith('--https='))?.slice('--https='.length)
  const off = argv.at(-1) === 'off'
  if (s.deny) {
    process.stderr.write(
      `Access denied: serve config denied\n\nUse 'sudo tailscale serve ${argv.join(' ')}'.\nTo not require root, use 'sudo tailscale set --operator=$USER' once.\n`,
    )
    process.exit(1)
  }
  if (!https) {
    process.stderr.write('error: missing --https\n')
    process.exit(1)
  }
  const key = `${s.dns}:${https}`
  if (off) {
    delete s.serve.TCP?.[https]
    delete s.serve.Web?.[key]
    save()
    process.exit(0)
  }
  const target = argv.at(-1)!
  s.serve.TCP = { ...s.serve.TCP, [https]: { HTTPS: true } }
  s.serve.Web = { ...s.serve.Web, [key]: { Handlers: { '/': { Proxy: target } } } }
  save()
  process.stdout.write(
    `Available within your tailnet:\n\nhttps://${s.dns}${https === '443' ? '' : `:${https}`}/\n|-- proxy ${target}\n\nServe started and running in the background.\nTo disable the proxy, run: tailscale serve --https=${https} off\n`,
  )
  process.exit(0)
}
process.stderr.write(`fake tailscale: unknown command ${argv.join(' ')}\n`)
process.exit(64)
