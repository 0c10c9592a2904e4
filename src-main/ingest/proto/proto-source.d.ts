/** Vite and vitest: importing `x.proto?raw` yields the file's text. */
declare module '*.proto?raw' {
  const text: string;
  export default text;
}
