/** Countries as members type them after a place: by code or by name, in English or German. */
import { describe, expect, it } from 'vitest';
import { countryCode, isCountryCode } from '../../src/domain/weather/countries.js';

describe('country codes and names', () => {
  it('know the ISO codes in any case, and UK, which the geocoder reads as GB', () => {
    expect(['de', 'US', 'gb', 'Nl', 'UK'].map(isCountryCode)).toEqual([true, true, true, true, true]);
    // Dutch postal codes end in two letters that are often no country: `1012 AB`.
    expect(['AB', 'XX', 'EU', 'ZZ'].map(isCountryCode)).toEqual([false, false, false, false]);
  });

  it('read English and German names, with or without their accents', () => {
    expect(countryCode('Germany')).toBe('DE');
    expect(countryCode('deutschland')).toBe('DE');
    expect(countryCode('Österreich')).toBe('AT');
    expect(countryCode('osterreich')).toBe('AT');
    expect(countryCode('United  States')).toBe('US');
    expect(countryCode('Vereinigte Staaten')).toBe('US');
    expect(countryCode('Bosnia and Herzegovina')).toBe('BA');
    expect(countryCode('fr')).toBe('FR');
    expect(countryCode('Narnia')).toBeUndefined();
    expect(countryCode('European Union')).toBeUndefined();
  });
});
