/** @file The error `npm run models` stops with: one a person can act on. */

/** A failure a person can act on: what, which package and version, and what to do. */
export class ModelsError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ModelsError';
  }
}
