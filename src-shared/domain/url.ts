import { z } from 'zod';

/** Longest URL accepted anywhere (provider base URLs, fleet files). */
export const MAX_URL_LENGTH = 2000;

/**
 * An absolute http:// or https:// address, without spaces. Other schemes (javascript:, file:,
 * data:, ftp:) are refused: every URL the app stores is one it later sends HTTP requests to.
 */
export const httpUrlSchema = z
  .string()
  .max(MAX_URL_LENGTH, { error: `must be at most ${MAX_URL_LENGTH} characters` })
  .regex(/^https?:\/\/\S+$/, { error: 'must be an http:// or https:// address without spaces' })
  .pipe(z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// address' }));
