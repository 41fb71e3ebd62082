import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMusicRef, toMusicUri, type MusicRefType } from '../../src/services/music/index.js';

const TYPES: MusicRefType[] = ['album', 'artist', 'playlist', 'track'];
const id = fc.stringMatching(/^[0-9A-Za-z]{22}$/);
const type = fc.constantFrom(...TYPES);
const scheme = fc.constantFrom('service', 'spotify');
const host = fc.constantFrom('open.service.example', 'open.spotify.com');

describe('parseMusicRef', () => {
  it('reads an id back from an id, a URI and a share link of its type', () => {
    fc.assert(
      fc.property(
        id,
        type,
        scheme,
        host,
        fc.option(fc.constantFrom('intl-de', 'intl-pt-br', 'embed'), { nil: undefined }),
        (value, kind, s, h, segment) => {
          expect(parseMusicRef(value, kind)).toBe(value);
          expect(parseMusicRef(toMusicUri(kind, value, s), kind)).toBe(value);
          const prefix = segment === undefined ? '' : `${segment}/`;
          expect(parseMusicRef(`https://${h}/${prefix}${kind}/${value}?si=AbC123`, kind)).toBe(value);
          expect(parseMusicRef(`  https://${h}/${kind}/${value}  `, kind)).toBe(value);
        },
      ),
    );
  });

  it('reads a reference pasted in <>, quotes or brackets, or ending a sentence', () => {
    const opening = fc.constantFrom('', '<', '(', '[', '"', "'", '`', '“', '‘', '«', '(<');
    const closing = fc.constantFrom('', '>', ')', ']', '"', "'", '`', '”', '’', '»', '>)');
    const punctuation = fc.constantFrom('', '.', ')', ';', ',', '!', '?', ':', '...', ').');
    fc.assert(
      fc.property(
        id,
        type,
        scheme,
        host,
        opening,
        closing,
        punctuation,
        (value, kind, s, h, before, after, end) => {
          for (const ref of [
            value,
            toMusicUri(kind, value, s),
            `https://${h}/${kind}/${value}`,
            `https://${h}/${kind}/${value}?si=AbC123`,
          ])
            expect(parseMusicRef(`${before}${ref}${after}${end}`, kind)).toBe(value);
        },
      ),
    );
    // Only what surrounds it: a wrapped reference of another type, or one with punctuation inside,
    // is still no reference.
    const value = '4aawyAB9vmqN3uQ7FjRGTy';
    expect(parseMusicRef(`<https://open.service.example/album/${value}>`, 'artist')).toBeUndefined();
    expect(parseMusicRef(`<${value.slice(0, 10)}.${value.slice(10)}>`, 'album')).toBeUndefined();
    expect(parseMusicRef(`${value}x.`, 'album')).toBeUndefined();
    expect(parseMusicRef('<>', 'album')).toBeUndefined();
  });

  it('refuses a URI or link of another type', () => {
    fc.assert(
      fc.property(id, type, type, (value, named, asked) => {
        fc.pre(named !== asked);
        expect(parseMusicRef(toMusicUri(named, value), asked)).toBeUndefined();
        expect(parseMusicRef(`https://open.service.example/${named}/${value}`, asked)).toBeUndefined();
      }),
    );
  });

  it('returns undefined for anything that is not an id, URI or link', () => {
    fc.assert(
      fc.property(fc.string(), type, (text, kind) => {
        // What surrounds a reference (see `unwrapRef`) is left out before it is read.
        fc.pre(!/^[\s<([{"'`“‘«]*[0-9A-Za-z]{22}[\s>)\]}"'`”’».,;:!?]*$/.test(text));
        fc.pre(!/^[\s<([{"'`“‘«]*(?:[a-z][a-z0-9]*:|https?:\/\/open\.)/.test(text));
        expect(parseMusicRef(text, kind)).toBeUndefined();
      }),
    );
  });

  it('handles the known awkward forms', () => {
    const value = '37i9dQZF1DXcBWIGoYBM5M';
    expect(parseMusicRef(`service:user:someone:playlist:${value}`, 'playlist')).toBe(value);
    expect(parseMusicRef(`https://open.service.example/user/someone/playlist/${value}`, 'playlist')).toBe(
      value,
    );
    expect(parseMusicRef(`https://example.com/playlist/${value}`, 'playlist')).toBeUndefined();
    expect(parseMusicRef(`https://open.service.example/playlist/${value}/extra`, 'playlist')).toBeUndefined();
    expect(parseMusicRef(`service:playlist:${value.slice(1)}`, 'playlist')).toBeUndefined();
    expect(parseMusicRef('Daft Punk', 'artist')).toBeUndefined();
    expect(parseMusicRef('', 'artist')).toBeUndefined();
  });
});
