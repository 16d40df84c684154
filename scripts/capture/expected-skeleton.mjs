// Add the labels a capture produced to OUT/expected.json without touching what a person
// already wrote there: new labels get agent_status "TODO" (the corpus test fails on it).
// Usage: node expected-skeleton.mjs OUT AGENT VERSION
import fs from 'node:fs'
import path from 'node:path'
const [out, agent, version] = process.argv.slice(2)
const file = path.join(out, 'expected.json')
const expected = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { agent, agent_version: version, screens: {} }
expected.agent_version = version
const labels = fs
  .readdirSync(out)
  .filter((f) => f.endsWith('.txt') && !f.endsWith('.recent.txt'))
  .map((f) => f.slice(0, -4))
  .sort()
for (const label of labels) {
  expected.screens[label] ??= { agent_status: 'TODO', permission_mode: null, headline: null }
}
fs.writeFileSync(file, JSON.stringify(expected, null, 1) + '\n')
