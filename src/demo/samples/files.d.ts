// Sample files imported with { type: 'file' } resolve to a path string.
declare module '*.jsonl' {
  const path: string
  export default path
}
declare module '*.ansi' {
  const path: string
  export default path
}
