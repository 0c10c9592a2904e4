/** electron-vite: importing `x?modulePath` bundles x on its own and yields the bundle's path. */
declare module '*?modulePath' {
  const path: string;
  export default path;
}
