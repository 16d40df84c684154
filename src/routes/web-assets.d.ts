// The phone client's assets, imported with { type: 'file' }: a path string
// (on disk under bun, inside the binary when compiled).
declare module '*.html' {
  const path: string
  export default path
}
declare module '*.webmanifest' {
  const path: string
  export default path
}
declare module '*.svg' {
  const path: string
  export default path
}
declare module '*.png' {
  const path: string
  export default path
}
declare module '*.css' {
  const path: string
  export default path
}
