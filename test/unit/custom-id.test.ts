import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { customIdCodec, field, MAX_CUSTOM_ID_LENGTH } from '../../src/bot/custom-id.js';
import { UserError } from '../../src/bot/errors.js';

const page = customIdCodec('plp', {
  owner: field.snowflake(),
  playlist: field.id(22),
  page: field.int(),
  action: field.oneOf('first', 'prev', 'next', 'last'),
});

describe('custom ids', () => {
  it('round-trip every valid state within 100 characters', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^\d{17,20}$/),
        fc.stringMatching(/^[A-Za-z0-9]{22}$/),
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.constantFrom('first', 'prev', 'next', 'last' as const),
        (owner, playlist, n, action) => {
          const id = page.encode({ owner, playlist, page: n, action });
          expect(id.length).toBeLessThanOrEqual(MAX_CUSTOM_ID_LENGTH);
          const [prefix, ...args] = id.split(':');
          expect(prefix).toBe('plp');
          expect(page.decode(args)).toEqual({ owner, playlist, page: n, action });
        },
      ),
    );
  });

  it('refuse anything else that comes back, as a user error', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 30 }), { maxLength: 6 }), (args) => {
        try {
          const decoded = page.decode(args);
          // Whatever decodes is a valid state, which encodes again.
          expect(page.decode(page.encode(decoded).split(':').slice(1))).toEqual(decoded);
        } catch (error) {
          expect(error).toBeInstanceOf(UserError);
        }
      }),
    );
    expect(() => page.decode(['123', 'abc', '-1', 'next'])).toThrow(UserError);
    expect(() => page.decode(['123', 'a:b', '1', 'next'])).toThrow(UserError);
  });
});
