import packageJson from '../package.json' with { type: 'json' };

/** The app's version, from package.json at build time. */
export const version: string = packageJson.version;
