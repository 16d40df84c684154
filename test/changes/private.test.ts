// What the working-tree routes never serve, as a verdict on paths (src/changes/private.ts):
// the places found from the bridge's and the agents' environment, and the credential
// stores wherever they sit; and which asked paths can name something below a base at all.
import { describe, expect, test } from 'bun:test'
import { componentsOf, isPrivate, privatePlaces } from '../../src/changes/private'

const homes = {
  home: '/nonexistent-home/me',
  claudeDir: '/elsewhere/claude',
  piDir: '/elsewhere/pi',
  codexDir: '/elsewhere/codex',
  xdgStateHome: '/nonexistent-home/me/.local/state',
  xdgDataHome: '/xdg/data',
}

describe('isPrivate', () => {
  const places = privatePlaces(homes, ['/srv/gothalo-data'])
  test("the bridge's directories and each agent's credentials where its environment put them", () => {
    for (const p of [
      '/srv/gothalo-data',
      '/srv/gothalo-data/admin-token',
      '/xdg/data/gothalo/vapid.json',
      '/nonexistent-home/me/.local/share/gothalo/gothalo.db',
      '/nonexistent-home/me/.config/gothalo/x',
      '/elsewhere/claude/.credentials.json',
      '/elsewhere/pi/auth.json',
      '/elsewhere/codex/auth.json',
      '/xdg/data/opencode/auth.json',
    ])
      expect([p, isPrivate(p, places)]).toEqual([p, true])
  })
  test('credential stores wherever they sit; their neighbours are not', () => {
    for (const p of [
      '/w/dots/.ssh',
      '/w/dots/.ssh/config',
      '/w/.docker/config.json',
      '/w/.config/gh/hosts.yml',
      '/w/x/.netrc',
      '/w/.pi/agent/auth.json',
      '/w/.SSH/id_rsa',
    ])
      expect([p, isPrivate(p, places)]).toEqual([p, true])
    for (const p of [
      '/w/.docker/daemon.json',
      '/w/.config/nvim/init.lua',
      '/w/ssh/notes',
      '/w/.claude/settings.json',
      '/srv/gothalo-data-other/x',
      '/elsewhere/pi/sessions/a.jsonl',
    ])
      expect([p, isPrivate(p, places)]).toEqual([p, false])
  })
})

test('componentsOf: only paths that stay below the base', () => {
  expect(componentsOf('')).toEqual([])
  expect(componentsOf('./a//b/')).toEqual(['a', 'b'])
  for (const bad of ['..', '../x', 'a/../../x', '/etc/passwd', '.git/config', 'a/.git', '.GIT/config', 'a\u0000b', 'x'.repeat(4097)])
    expect(componentsOf(bad)).toBeUndefined()
})
