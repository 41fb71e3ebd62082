/**
 * Which playlists the bot treats as private before and after reading them: `public: false`, or
 * collaborative (private on the service, whatever a response that leaves `public` out defaults to).
 */
import Keyv from 'keyv';
import { MessageFlags, type ChatInputCommandInteraction } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { showPlaylistMessage } from '../../src/commands/music/shared.js';
import type { MusicDeps } from '../../src/domain/music/deps.js';
import { knownPrivate } from '../../src/domain/music/playlists.js';
import { PLAYLIST_ID, playlistHead } from '../fixtures/music-render.js';

const USER = '100';
const ID = PLAYLIST_ID;
const head = playlistHead;

async function depsWith(entries: Record<string, unknown>): Promise<MusicDeps> {
  const cache = new Keyv();
  for (const [key, value] of Object.entries(entries)) await cache.set(key, value);
  return { cache, recent: new Keyv() } as unknown as MusicDeps;
}

describe('a playlist known to be private before it is read', () => {
  it('is one the member’s copy of their playlists, or its kept head, says is private or collaborative', async () => {
    const mine = (fields: Record<string, unknown>) => ({
      at: 0,
      playlists: [{ id: ID, name: 'Road trip', owner: 'Alice', total: 3, ...fields }],
    });
    const uri = `service:playlist:${ID}`;
    expect(await knownPrivate(await depsWith({ [`mine:${USER}`]: mine({ public: false }) }), USER, uri)).toBe(
      true,
    );
    // Typed by its name, found in the copy.
    expect(
      await knownPrivate(await depsWith({ [`mine:${USER}`]: mine({ public: false }) }), USER, ' road TRIP'),
    ).toBe(true);
    const headKey = `playlist:${USER}:${ID}`;
    expect(
      await knownPrivate(
        await depsWith({ [headKey]: head({ public: null, collaborative: true }) }),
        USER,
        uri,
      ),
    ).toBe(true);
    expect(await knownPrivate(await depsWith({ [headKey]: head({ public: false }) }), USER, uri)).toBe(true);
    // Public, or not known: the command acknowledges in public and finds out by reading it.
    expect(await knownPrivate(await depsWith({ [headKey]: head({}) }), USER, uri)).toBe(false);
    expect(await knownPrivate(await depsWith({ [`mine:${USER}`]: mine({}) }), USER, uri)).toBe(false);
    expect(await knownPrivate(await depsWith({}), USER, uri)).toBe(false);
    expect(await knownPrivate(await depsWith({}), USER, 'Road trip')).toBe(false);
  });
});

describe('the answer about a playlist, once read', () => {
  function deferredInPublic() {
    const calls: { method: string; payload?: unknown }[] = [];
    const record = (method: string) => (payload?: unknown) => {
      calls.push(payload === undefined ? { method } : { method, payload });
      return Promise.resolve();
    };
    const interaction = {
      deferred: true,
      replied: false,
      ephemeral: false,
      locale: 'en-US',
      isChatInputCommand: () => true,
      isMessageComponent: () => false,
      editReply: record('editReply'),
      followUp: record('followUp'),
      deleteReply: record('deleteReply'),
    } as unknown as ChatInputCommandInteraction;
    return { interaction, calls };
  }
  const message = { embeds: [{ title: 'Road trip' }], components: [] };

  it('goes to the member alone for a collaborative playlist whose `public` the service left out', async () => {
    const { interaction, calls } = deferredInPublic();
    await showPlaylistMessage(interaction, { public: null, collaborative: true }, message);
    expect(calls.map((call) => call.method)).toEqual(['editReply', 'followUp', 'deleteReply']);
    expect(calls[1]?.payload).toMatchObject({ embeds: message.embeds, flags: MessageFlags.Ephemeral });
  });

  it('goes to the channel for a public one', async () => {
    const { interaction, calls } = deferredInPublic();
    await showPlaylistMessage(interaction, { public: true, collaborative: false }, message);
    expect(calls).toEqual([{ method: 'editReply', payload: message }]);
  });
});
