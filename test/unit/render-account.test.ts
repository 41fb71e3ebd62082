import { describe, expect, it } from 'vitest';
import { renderLinked, renderLinkStatus } from '../../src/bot/render/account.js';
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
});
