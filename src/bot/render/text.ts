/**
 * Text helpers every renderer shares. Lengths are in UTF-16 code units (see src/domain/text.ts).
 */

/** Discord's embed limits. */
export const EMBED_LIMITS = {
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  author: 256,
  total: 6000,
} as const;

export { truncate } from '../../domain/text.js';
