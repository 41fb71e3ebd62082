import { describe, expect, it } from 'vitest';
import { renderLinked, renderLinkStatus } from '../../src/bot/render/account.js';
import { MUSIC_SCOPES } from '../../src/auth/oauth.js';
import { linkFactory } from '../fixtures/links.js';

const HOSTILE = 'Evil [x](http://evil.example) `code` **bold**';
const ESCAPED = 'Evil \\[x\\](http\\://evil.example) \\`code\\` \\*\\*bold\\*\\*';
/** A masked link Discord would make clickable: brackets and parenthesis not escaped. */
const MASKED_LINK = /(?<!\\)\[[^\]]*(?<!\\)\]\(/;

describe('account renderers', () => {
  it('shows a display name with markdown as typed when the account is linked, linking nowhere', () => {
    const description = renderLinked({ displayName: HOSTILE, accountId: 'a1' }).toJSON().description!;
    expect(description).not.toMatch(MASKED_LINK);
    expect(description).toBe(`Linked as **${ESCAPED}**. Your music commands now use this account.`);
  });

  it('escapes the display name and id the service reports in /music status', () => {
    const link = linkFactory({ displayName: 'stale' });
    const profile = {
      id: 'id_[y](http://evil.example)',
      display_name: HOSTILE,
      images: [],
      type: 'user',
      uri: 'music:user:x',
    };
    const field = renderLinkStatus(link, profile)
      .toJSON()
      .fields?.find((f) => f.name === 'Linked as');
    expect(field?.value).not.toMatch(MASKED_LINK);
    expect(field?.value).toBe(`${ESCAPED} (id\\_\\[y\\](http\\://evil.example))`);
  });

  it('names the account the same way in /music status whether or not the service answers', () => {
    const link = linkFactory({ displayName: 'Alice', accountId: '9f2c4e1a0b7d3e5f6a8b9c0d' });
    const linkedAs = (profile: Parameters<typeof renderLinkStatus>[1]) =>
      renderLinkStatus(link, profile)
        .toJSON()
        .fields?.find((f) => f.name === 'Linked as')?.value;
    const profile = { id: 'alice', display_name: 'Alice', images: [], type: 'user', uri: 'music:user:alice' };
    expect(linkedAs(profile)).toBe('Alice (alice)');
    // The service down: the name the link kept, not the opaque account id in its place.
    expect(linkedAs(undefined)).toBe('Alice');
    // No display name: the user id, once.
    expect(linkedAs({ ...profile, display_name: null })).toBe('alice');
    expect(linkedAs({ ...profile, display_name: null })).not.toContain('9f2c');
  });

  it('says what a link made with fewer permissions than asked for cannot do, in the message and /music status', () => {
    const scopes = ['user-read-private', 'playlist-read-private', 'playlist-read-collaborative'];
    const linked = renderLinked({ displayName: 'Alice', accountId: 'a1', scopes }).toJSON().description;
    expect(linked).toContain(
      'The music service did not grant everything the bot asked for, so it cannot save and remove albums in your library; see your devices; pause and skip;',
    );
    const status = renderLinkStatus(linkFactory({ scopes }), undefined).toJSON();
    expect(status.fields?.find((f) => f.name === 'Not granted')?.value.split('\n')).toEqual([
      '• save and remove albums in your library',
      '• see your devices',
      '• pause and skip',
      '• edit your public playlists',
      '• edit your private playlists',
    ]);
    // A link with everything: nothing said of it.
    expect(
      renderLinked({ displayName: 'Alice', accountId: 'a1', scopes: [...MUSIC_SCOPES] }).toJSON().description,
    ).not.toContain('grant');
    expect(
      renderLinkStatus(linkFactory({ scopes: [...MUSIC_SCOPES] }), undefined)
        .toJSON()
        .fields?.map((f) => f.name),
    ).not.toContain('Not granted');
  });
});
