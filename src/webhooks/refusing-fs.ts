import type { FS } from 'liquidjs';

const noFiles = (): never => {
  throw new Error('Templates cannot read files');
};

/**
 * The file system every sandboxed LiquidJS engine is given (webhook bodies, mail templates): it has
 * no files, so `include` and `render` of a file fail (docs/webhooks.md "Bodies").
 */
export const refusingFs: FS = {
  exists: async () => false,
  existsSync: () => false,
  readFile: async () => noFiles(),
  readFileSync: noFiles,
  resolve: (_dir, file) => file,
};
