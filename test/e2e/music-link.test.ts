import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keyring, seal } from '../../src/auth/seal.js';
import { buttonId, linkButtonUrl, startBotWorld, type BotWorld } from '../helpers/bot.js';
import { completeLink } from '../../emulators/music/walk.js';

describe('linking a music account from Discord', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ music: true });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('answers /music status before linking with a pointer to /music link', async () => {
    const reply = await world.slash('music', { subcommand: 'status', userId: world.bob.id }).reply();
    expect(`${reply.content ?? ''}\n${reply.embeds[0]?.description ?? ''}`).toContain('/music link');
    expect(reply.flags! & 64).toBe(64);
    // With the button that links, as every music command answers a member not linked yet.
    expect(linkButtonUrl(reply)).toMatch(/^https?:\/\//);
  });

  it('links through the button, then edits the ephemeral /music link message to say so', async () => {
    const handle = world.slash('music', { subcommand: 'link' });
    const prompt = await handle.reply();
    expect(prompt.flags! & 64).toBe(64);
    expect(prompt.embeds[0]?.title).toBe('Link your music account');

    const musicUser = world.music!.fixtures!.users.premium;
    const page = await completeLink(world.music!, linkButtonUrl(prompt), musicUser);
    expect(page.body).toContain('You can close this tab and go back to Discord.');

    const edited = await handle.waitForEdit();
    expect(edited.embeds[0]?.title).toBe('Music account linked');
    expect(edited.components ?? []).toHaveLength(0);
  });

  it('shows the linked account, premium status and granted scopes in /music status', async () => {
    const reply = await world.slash('music', { subcommand: 'status' }).reply();
    const fields = Object.fromEntries((reply.embeds[0]?.fields ?? []).map((f) => [f.name, f.value]));
    expect(fields['Premium']).toBe('Yes');
    expect(fields['The bot may']).toContain('pause and skip');
    expect(fields['Linked as']).toContain(world.music!.fixtures!.users.premium);
  });

  it('keeps the link across a restart of the bot', async () => {
    await world.restart();
    const reply = await world.slash('music', { subcommand: 'status' }).reply();
    expect(reply.embeds[0]?.title).toBe('Your music account');
  });

  it('asks a member to link again when their link was sealed with a key the bot does not have', async () => {
    // As after the owner replaced TOKEN_ENCRYPTION_KEY without keeping the old one in *_KEYS_OLD.
    const links = world.app.storage.ns<string>('links');
    const userId = world.alice.id;
    await links.set(userId, seal(new Keyring(randomBytes(32)), userId, { accessToken: 'unreadable' }));
    const reply = await world.slash('music', { subcommand: 'status' }).reply();
    expect(reply.content).toBe(
      'This bot can no longer read your music link (its owner changed the encryption key). ' +
        'Link your account again with /music link.',
    );
    expect(reply.flags! & 64).toBe(64);
    expect(world.logs.join('')).toContain('a stored music link could not be read');

    // Linking again replaces it.
    const handle = world.slash('music', { subcommand: 'link' });
    await completeLink(
      world.music!,
      linkButtonUrl(await handle.reply()),
      world.music!.fixtures!.users.premium,
    );
    expect((await handle.waitForEdit()).embeds[0]?.title).toBe('Music account linked');
    const status = await world.slash('music', { subcommand: 'status' }).reply();
    expect(status.embeds[0]?.title).toBe('Your music account');
    // Asked again while linked: the prompt names the account a new link would replace.
    const again = await world.slash('music', { subcommand: 'link' }).reply();
    expect(again.embeds[0]?.description).toContain(
      'You are linked as **Alice** now: linking an account replaces that link.',
    );
  });

  it('keeps telling a member whose link lapsed that it expired, until they link again or unlink', async () => {
    const userId = world.bob.id;
    await world.linkMusic(userId, world.music!.fixtures!.users.free);
    // The service refuses the access token, then the refresh token (expired or revoked).
    world.music!.failNext('/v1/me', 401);
    world.music!.failNext('/api/token', 400, { error: 'invalid_grant', message: 'Refresh token revoked' });
    const expired = 'Your music account link has expired or was revoked. Use /music link to link it again.';
    // Said in the text, or above the link button.
    const said = (message: { content?: string; embeds?: { description?: string }[] }) =>
      `${message.content ?? ''}\n${message.embeds?.[0]?.description ?? ''}`;
    const first = await world.slash('music', { subcommand: 'status', userId }).reply();
    expect(said(first)).toContain(expired);
    // Later commands, and after a restart (as in another process), say the same, not "not linked yet".
    await world.restart();
    for (const subcommand of ['status', 'devices']) {
      const later = await world.slash('music', { subcommand, userId }).reply();
      expect(said(later), subcommand).toContain(expired);
      expect(said(later), subcommand).not.toContain('not linked');
      expect(later.flags! & 64).toBe(64);
    }
    // Unlinking is the member's choice: from then on, the bot speaks of no link at all. It says the
    // expired link is what goes (not that no account was linked, having spoken of one till now).
    expect((await world.slash('music', { subcommand: 'unlink', userId }).reply()).content).toBe(
      'Your expired music link is forgotten: the bot held no tokens for it any more. /music link links an account again.',
    );
    const after = await world.slash('music', { subcommand: 'status', userId }).reply();
    expect(said(after)).toContain('You have not linked a music account yet. Use /music link first.');
  });

  it('forgets the account with /music unlink', async () => {
    const unlinking = world.slash('music', { subcommand: 'unlink' });
    // Acknowledged privately before it waits for any token refresh in flight.
    expect(await unlinking.waitForCallback()).toMatchObject({ type: 5, data: { flags: 64 } });
    const reply = await unlinking.reply();
    expect(reply.content).toContain('unlinked');
    const status = await world.slash('music', { subcommand: 'status' }).reply();
    expect(`${status.content ?? ''}\n${status.embeds[0]?.description ?? ''}`).toContain('/music link');
  });

  // Last: the bot then waits out the service's hour for /v1/me, as it should, and linking needs it.
  it('shows what the link holds when the service cannot say more for now', async () => {
    const carol = world.discord.createUser({ username: 'carol' });
    await world.linkMusic(carol.id, world.music!.fixtures!.users.premium);
    // Asked to wait an hour for the profile: the link itself is still read and shown.
    world.music!.failNext('/v1/me', 429, { retryAfterSeconds: 3600 });
    const reply = await world.slash('music', { subcommand: 'status', userId: carol.id }).reply();
    expect(reply.flags! & 64).toBe(64);
    expect(reply.embeds[0]?.title).toBe('Your music account');
    const fields = Object.fromEntries((reply.embeds[0]?.fields ?? []).map((f) => [f.name, f.value]));
    expect(fields['Premium']).toBe('Yes');
    // The name the link was made with, not the one the service would give now, and not the
    // account's opaque id beside it (the user id the service shows comes only with its answer).
    expect(fields['Linked as']).toBe('Alice');
  });
});

describe('a bot without a music app configured', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld();
  });
  afterAll(async () => {
    await world?.close();
  });

  it('says the music commands are switched off', async () => {
    const reply = await world.slash('music', { subcommand: 'link' }).reply();
    expect(reply.content).toMatch(/music commands are switched off/);
    expect(reply.flags! & 64).toBe(64);
  });
});

describe('a bot with a music app but no encryption key', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ music: true, env: { TOKEN_ENCRYPTION_KEY: '' } });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('says why account linking is off', async () => {
    const reply = await world.slash('music', { subcommand: 'link' }).reply();
    expect(reply.content).toMatch(/Linking music accounts is switched off.*TOKEN_ENCRYPTION_KEY/);
    expect(reply.flags! & 64).toBe(64);
  });

  it('still looks up albums and artists, and pages an album, as it says it does', async () => {
    const { catalog } = world.music!.fixtures!;
    const album = await world
      .slash('music', { subcommand: 'album', options: { album: catalog.longAlbumId } })
      .reply();
    expect(album.embeds[0]?.title).toBe('Complete Sessions');
    const next = await world.discord
      .clickButton({
        userId: world.alice.id,
        message: album,
        customId: buttonId(album, 'Tracks ▶'),
        guildId: world.guildId,
        channelId: world.channelId,
      })
      .reply();
    expect(next.embeds[0]?.footer?.text).toMatch(/^Tracks 21–40 of 120/);
    const artist = await world
      .slash('music', { subcommand: 'artist', options: { artist: catalog.artistId } })
      .reply();
    expect(artist.embeds[0]?.fields?.map((field) => field.name)).toContain('Followers');
  });
});
