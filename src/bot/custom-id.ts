/**
 * Compact, validated state in a button's `custom_id` (at most 100 characters), so a button works
 * after a restart and after its interaction token expired. Anyone can send any custom id: every
 * field is checked when it comes back.
 *
 * Layout: `<prefix>:<field>:<field>…`; integers are written in base 36, strings as they are (they
 * must not contain `:`).
 */
import { z } from 'zod';
import { StaleInteractionError } from './errors.js';
import { CUSTOM_ID_SEPARATOR } from './router.js';

export const MAX_CUSTOM_ID_LENGTH = 100;

type FieldKind = 'int' | 'snowflake' | 'id' | 'enum';

interface FieldSpec<T> {
  kind: FieldKind;
  schema: z.ZodType<T>;
}

/** Field types for {@link customIdCodec}. */
export const field = {
  /** A non-negative integer (page numbers, positions), written in base 36. */
  int: (): FieldSpec<number> => ({
    kind: 'int',
    schema: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  }),
  /** A Discord id. */
  snowflake: (): FieldSpec<string> => ({ kind: 'snowflake', schema: z.string().regex(/^\d{1,21}$/) }),
  /** An upstream id: letters, digits, `_` and `-`, at most `max` characters. */
  id: (max = 64): FieldSpec<string> => ({
    kind: 'id',
    schema: z.string().regex(new RegExp(`^[A-Za-z0-9_-]{0,${max}}$`)),
  }),
  /** One of a few short words. */
  oneOf: <const V extends readonly [string, ...string[]]>(...values: V): FieldSpec<V[number]> => ({
    kind: 'enum',
    schema: z.enum(values),
  }),
};

export interface CustomIdCodec<T> {
  readonly prefix: string;
  encode(value: T): string;
  /** The fields after the prefix; throws a `StaleInteractionError` when they are not valid. */
  decode(args: readonly string[]): T;
}

/** A codec for one kind of button; `fields` are in the order they are written. */
export function customIdCodec<T extends Record<string, string | number>>(
  prefix: string,
  fields: { [K in keyof T]: FieldSpec<T[K]> },
): CustomIdCodec<T> {
  if (!/^[a-z][a-z0-9]{0,7}$/.test(prefix))
    throw new Error(`custom-id prefix must be short and plain: ${prefix}`);
  const names = Object.keys(fields) as (keyof T & string)[];
  return {
    prefix,
    encode(value) {
      const parts = names.map((name) => {
        const spec = fields[name];
        const parsed = spec.schema.parse(value[name]);
        return spec.kind === 'int' ? (parsed as number).toString(36) : String(parsed);
      });
      const id = [prefix, ...parts].join(CUSTOM_ID_SEPARATOR);
      if (id.length > MAX_CUSTOM_ID_LENGTH)
        throw new Error(`custom id over ${MAX_CUSTOM_ID_LENGTH} characters: ${id}`);
      return id;
    },
    decode(args) {
      const invalid = new StaleInteractionError('invalidButton');
      if (args.length !== names.length) throw invalid;
      const out: Record<string, unknown> = {};
      for (const [index, name] of names.entries()) {
        const spec = fields[name];
        const raw = args[index] ?? '';
        const candidate =
          spec.kind === 'int' ? (/^[0-9a-z]{1,11}$/.test(raw) ? parseInt(raw, 36) : NaN) : raw;
        const parsed = spec.schema.safeParse(candidate);
        if (!parsed.success) throw invalid;
        out[name] = parsed.data;
      }
      return out as T;
    },
  };
}
