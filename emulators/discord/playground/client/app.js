// @ts-check
/* global clearTimeout, document, fetch, location, queueMicrotask, setInterval, setTimeout, window */
/**
 * The playground page: a small Discord client over the playground server's JSON API. Plain
 * JavaScript (type-checked through JSDoc by ./tsconfig.json), served as it is: no build step and
 * nothing fetched from anywhere but the local emulators.
 */

/**
 * @typedef {{ id: string, name: string, note?: string }} User
 * @typedef {{ id: string, name: string, channels: { id: string, name: string }[] }} Guild
 * @typedef {{ name: string, value: string | number }} Choice
 * @typedef {{ type: number, name: string, description?: string, required?: boolean, autocomplete?: boolean,
 *   choices?: Choice[], options?: CommandOption[] }} CommandOption
 * @typedef {{ name: string, description?: string, options?: CommandOption[] }} Command
 * @typedef {{ label: string, name: string, group?: string, sub?: string, description: string,
 *   options: CommandOption[] }} Entry
 * @typedef {{ url?: string }} Media
 * @typedef {{ name: string, value: string, inline?: boolean }} Field
 * @typedef {{ title?: string, url?: string, description?: string, color?: number, timestamp?: string,
 *   author?: { name: string, url?: string, icon_url?: string }, footer?: { text: string, icon_url?: string },
 *   fields?: Field[], thumbnail?: Media, image?: Media }} Embed
 * @typedef {{ type: number, style?: number, label?: string, emoji?: { name?: string }, custom_id?: string,
 *   url?: string, disabled?: boolean, placeholder?: string,
 *   options?: { label: string, value: string, description?: string, default?: boolean }[],
 *   components?: Component[] }} Component
 * @typedef {{ id: string, filename: string, url: string, content_type?: string, size: number }} Attachment
 * @typedef {{ id: string, channel_id: string, content: string, timestamp: string, edited_timestamp: string | null,
 *   flags?: number, author: { username: string, global_name?: string | null }, embeds: Embed[],
 *   attachments: Attachment[], components?: Component[],
 *   interaction?: { name: string, user: { id: string, username: string, global_name?: string | null } },
 *   interaction_metadata?: { id: string, user: { id: string, username: string, global_name?: string | null } },
 *   command_label?: string }} Message
 * @typedef {{ id: string, text: string, at: number }} Notice
 */

/** @type {{ guilds: Guild[], users: User[], guildId: string, channelId: string, userId: string,
 *   commands: Command[], version: number, entry: Entry | null, poll: number, clockOffset: number }} */
const state = {
  guilds: [],
  users: [],
  guildId: '',
  channelId: '',
  userId: '',
  commands: [],
  version: -1,
  entry: null,
  poll: 0,
  clockOffset: 0,
};

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string>} [attrs]
 * @param {(Node | string | null | undefined)[]} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
function h(tag, attrs = {}, children = []) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === 'class') element.className = value;
    else element.setAttribute(key, value);
  }
  for (const child of children) if (child !== null && child !== undefined) element.append(child);
  return element;
}

/**
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<unknown>}
 */
async function api(path, body) {
  const response = await fetch(
    path,
    body === undefined
      ? {}
      : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  const data = /** @type {unknown} */ (await response.json());
  if (!response.ok) {
    const error = typeof data === 'object' && data !== null && 'error' in data ? data.error : undefined;
    throw new Error(typeof error === 'string' ? error : response.statusText);
  }
  return data;
}

/**
 * What Discord refused before the bot saw anything (a missing option, a value out of range), shown
 * above the composer until the next action.
 * @param {unknown} error
 */
function showError(error) {
  const box = $('error');
  box.textContent = error instanceof Error ? error.message : String(error);
  box.hidden = false;
}

// ------------------------------------------------------------ text

/** Local addresses only: anything else would leave the machine, so it is shown as a placeholder. */
/** @param {string | undefined} url */
function isLocal(url) {
  if (!url) return false;
  try {
    const host = new URL(url, location.href).hostname;
    return host === '127.0.0.1' || host === 'localhost' || host === location.hostname;
  } catch {
    return false;
  }
}

/** @param {string} id */
function userName(id) {
  return state.users.find((user) => user.id === id)?.name ?? `user ${id.slice(-4)}`;
}

/**
 * Discord's markdown, the parts the bot uses: bold, italic, code, links, mentions and timestamps.
 * @param {string} text
 * @returns {DocumentFragment}
 */
function markdown(text) {
  const fragment = document.createDocumentFragment();
  const pattern =
    /(\*\*([^*]+)\*\*)|(__([^_]+)__)|(\*([^*\n]+)\*)|(`([^`]+)`)|(\[([^\]]+)\]\((\S+?)\))|(<@!?(\d+)>)|(<t:(\d+)(?::([tTdDfFR]))?>)|(<#(\d+)>)/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    fragment.append(text.slice(last, match.index));
    last = match.index + match[0].length;
    if (match[2] !== undefined) fragment.append(h('strong', {}, [markdown(match[2])]));
    else if (match[4] !== undefined) fragment.append(h('u', {}, [markdown(match[4])]));
    else if (match[6] !== undefined) fragment.append(h('em', {}, [markdown(match[6])]));
    else if (match[8] !== undefined) fragment.append(h('code', {}, [match[8]]));
    else if (match[10] !== undefined)
      fragment.append(h('a', { href: match[11] ?? '#', target: '_blank', rel: 'noopener' }, [match[10]]));
    else if (match[13] !== undefined)
      fragment.append(h('span', { class: 'mention' }, [`@${userName(match[13])}`]));
    else if (match[15] !== undefined)
      fragment.append(h('span', { class: 'mention' }, [timestamp(Number(match[15]), match[16])]));
    else if (match[18] !== undefined)
      fragment.append(h('span', { class: 'mention' }, [`#${channelName(match[18])}`]));
  }
  fragment.append(text.slice(last));
  return fragment;
}

/** @param {string} id */
function channelName(id) {
  for (const guild of state.guilds)
    for (const channel of guild.channels) if (channel.id === id) return channel.name;
  return 'unknown';
}

/**
 * @param {number} seconds
 * @param {string | undefined} style
 */
function timestamp(seconds, style) {
  const date = new Date(seconds * 1000);
  if (style === 'R') {
    const diff = seconds * 1000 - (Date.now() + state.clockOffset);
    const minutes = Math.round(diff / 60_000);
    const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
    if (Math.abs(minutes) < 60) return format.format(minutes, 'minute');
    if (Math.abs(minutes) < 48 * 60) return format.format(Math.round(minutes / 60), 'hour');
    return format.format(Math.round(minutes / 1440), 'day');
  }
  if (style === 't') return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  if (style === 'd') return date.toLocaleDateString();
  return date.toLocaleString();
}

// ------------------------------------------------------------ messages

/**
 * An embed's image: Discord gives a file the embed shows by its served url (never `attachment://`).
 * @param {string | undefined} url
 * @param {string} cls
 */
function image(url, cls) {
  if (!url) return null;
  if (!isLocal(url)) {
    return h('span', { class: `offline-image ${cls}`, title: url }, ['image (offline)']);
  }
  const img = h('img', { class: cls, src: url, alt: '' });
  img.addEventListener('load', keepAtBottom);
  return img;
}

/**
 * @param {Embed} embed
 */
function renderEmbed(embed) {
  const color = embed.color === undefined ? '#1e1f22' : `#${embed.color.toString(16).padStart(6, '0')}`;
  const box = h('article', { class: 'embed', style: `border-left-color: ${color}` });
  if (embed.author)
    box.append(
      h('div', { class: 'embed-author' }, [
        embed.author.icon_url && isLocal(embed.author.icon_url)
          ? h('img', { src: embed.author.icon_url, alt: '' })
          : null,
        embed.author.name,
      ]),
    );
  if (embed.title)
    box.append(
      h('div', { class: 'embed-title' }, [
        embed.url
          ? h('a', { href: embed.url, target: '_blank', rel: 'noopener' }, [markdown(embed.title)])
          : markdown(embed.title),
      ]),
    );
  if (embed.description) box.append(h('div', { class: 'embed-description' }, [markdown(embed.description)]));
  if (embed.fields?.length) {
    box.append(
      h(
        'div',
        { class: 'embed-fields' },
        embed.fields.map((field) =>
          h('div', { class: `embed-field${field.inline ? ' inline' : ''}` }, [
            h('div', { class: 'embed-field-name' }, [markdown(field.name)]),
            h('div', { class: 'embed-field-value' }, [markdown(field.value)]),
          ]),
        ),
      ),
    );
  }
  box.append(image(embed.image?.url, 'embed-image') ?? '');
  const footer = [
    embed.footer?.text,
    embed.timestamp ? new Date(embed.timestamp).toLocaleString() : undefined,
  ]
    .filter(Boolean)
    .join(' • ');
  if (footer) box.append(h('div', { class: 'embed-footer' }, [footer]));
  const thumbnail = image(embed.thumbnail?.url, 'embed-thumbnail');
  if (thumbnail) box.append(thumbnail);
  return box;
}

/**
 * @param {Component} row
 * @param {Message} message
 */
function renderRow(row, message) {
  const box = h('div', { class: 'row' });
  for (const component of row.components ?? []) {
    if (component.type === 2) {
      const text = [component.emoji?.name, component.label].filter(Boolean).join(' ');
      if (component.style === 5 && component.url) {
        box.append(
          h('a', { class: 'btn s5', href: component.url, target: '_blank', rel: 'noopener' }, [`${text} ↗`]),
        );
        continue;
      }
      const button = h('button', { class: `btn s${component.style ?? 2}`, type: 'button' }, [text]);
      button.disabled = component.disabled === true;
      button.addEventListener('click', () => {
        button.disabled = true;
        void act({ messageId: message.id, customId: component.custom_id }).finally(
          () => (button.disabled = false),
        );
      });
      box.append(button);
    } else if (component.type === 3) {
      const select = h('select', {}, [
        h('option', { value: '' }, [component.placeholder ?? 'Make a selection']),
        ...(component.options ?? []).map((option) => h('option', { value: option.value }, [option.label])),
      ]);
      select.disabled = component.disabled === true;
      select.addEventListener('change', () => {
        if (select.value !== '')
          void act({ messageId: message.id, customId: component.custom_id, values: [select.value] });
      });
      box.append(select);
    }
  }
  return box;
}

/** @param {Record<string, unknown>} body */
async function act(body) {
  $('error').hidden = true;
  try {
    await api('/api/component', { ...body, userId: state.userId });
  } catch (error) {
    showError(error);
  }
}

/** @param {Message} message */
function renderMessage(message) {
  const ephemeral = ((message.flags ?? 0) & 64) !== 0;
  const li = h('li', { class: `message${ephemeral ? ' ephemeral' : ''}`, 'data-message-id': message.id });
  const invoker = message.interaction?.user ?? message.interaction_metadata?.user;
  if (message.interaction && invoker)
    li.append(
      h('div', { class: 'used' }, [
        `${invoker.global_name ?? invoker.username} used `,
        h('code', {}, [`/${message.command_label ?? message.interaction.name}`]),
      ]),
    );
  const name = message.author.global_name ?? message.author.username;
  li.append(h('div', { class: 'avatar' }, [name.slice(0, 1).toUpperCase()]));
  li.append(
    h('div', {}, [
      h('span', { class: 'author' }, [name]),
      h('span', { class: 'app-tag' }, ['APP']),
      h('time', { class: 'stamp', datetime: message.timestamp }, [
        new Date(message.timestamp).toLocaleTimeString(),
      ]),
    ]),
  );
  if ((message.flags ?? 0) & 128)
    li.append(h('div', { class: 'content thinking' }, [`${name} is thinking…`]));
  if (message.content)
    li.append(
      h('div', { class: 'content' }, [
        markdown(message.content),
        message.edited_timestamp ? h('span', { class: 'edited' }, ['(edited)']) : null,
      ]),
    );
  for (const embed of message.embeds) li.append(renderEmbed(embed));
  // Files an embed shows are not listed in `attachments` (Discord leaves them out).
  for (const attachment of message.attachments) {
    if (attachment.content_type?.startsWith('image/')) {
      const img = h('img', { class: 'attachment', src: attachment.url, alt: attachment.filename });
      img.addEventListener('load', keepAtBottom);
      li.append(img);
    } else
      li.append(
        h('a', { class: 'file', href: attachment.url, target: '_blank' }, [`📄 ${attachment.filename}`]),
      );
  }
  for (const row of message.components ?? []) li.append(renderRow(row, message));
  if (ephemeral) li.append(h('div', { class: 'only-you' }, ['Only you can see this']));
  return li;
}

/** Set while the list is scrolled to its end, so late images keep it there. */
let stickToBottom = true;

function keepAtBottom() {
  const list = $('messages');
  if (stickToBottom) list.scrollTop = list.scrollHeight;
}

/** @param {{ version: number, messages: Message[], notices: Notice[] }} data */
function renderMessages(data) {
  const list = $('messages');
  const atBottom = stickToBottom || list.scrollHeight - list.scrollTop - list.clientHeight < 80;
  /** @type {{ at: number, node: HTMLElement }[]} */
  const items = data.messages.map((message) => ({
    at: Date.parse(message.timestamp),
    node: renderMessage(message),
  }));
  for (const notice of data.notices)
    items.push({ at: notice.at, node: h('li', { class: 'notice' }, [`⚠ ${notice.text}`]) });
  list.replaceChildren(...items.map((item) => item.node));
  list.setAttribute('aria-busy', 'false');
  stickToBottom = atBottom;
  if (atBottom) list.scrollTop = list.scrollHeight;
}

async function pollLoop() {
  const poll = ++state.poll;
  while (poll === state.poll) {
    try {
      const query = new URLSearchParams({
        channelId: state.channelId,
        userId: state.userId,
        since: String(state.version),
      });
      const data = /** @type {{ version: number, messages: Message[], notices: Notice[] }} */ (
        await api(`/api/messages?${query.toString()}`)
      );
      if (poll !== state.poll) return;
      state.version = data.version;
      renderMessages(data);
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/**
 * Another channel or member: the list is emptied at once, so nothing of the previous view (another
 * member's ephemeral messages, buttons that would now act as someone else) stays on screen until
 * the first answer; `aria-busy` says when that answer is shown.
 */
function restartPoll() {
  state.version = -1;
  const list = $('messages');
  list.replaceChildren();
  list.setAttribute('aria-busy', 'true');
  stickToBottom = true;
  void pollLoop();
}

// ------------------------------------------------------------ composer

/** @returns {Entry[]} */
function entries() {
  /** @type {Entry[]} */
  const list = [];
  for (const command of state.commands) {
    const subs = (command.options ?? []).filter((o) => o.type === 1 || o.type === 2);
    if (subs.length === 0)
      list.push({
        label: command.name,
        name: command.name,
        description: command.description ?? '',
        options: command.options ?? [],
      });
    for (const sub of subs) {
      if (sub.type === 1)
        list.push({
          label: `${command.name} ${sub.name}`,
          name: command.name,
          sub: sub.name,
          description: sub.description ?? '',
          options: sub.options ?? [],
        });
      else
        for (const inner of sub.options ?? [])
          list.push({
            label: `${command.name} ${sub.name} ${inner.name}`,
            name: command.name,
            group: sub.name,
            sub: inner.name,
            description: inner.description ?? '',
            options: inner.options ?? [],
          });
    }
  }
  return list;
}

function showSuggestions() {
  const box = $('suggestions');
  const text = /** @type {HTMLInputElement} */ ($('input')).value;
  if (!text.startsWith('/') || state.entry) {
    box.hidden = true;
    return;
  }
  const query = text.slice(1).trim().toLowerCase();
  const matches = entries().filter(
    (entry) => entry.label.startsWith(query) || (query.length > 1 && entry.label.includes(query)),
  );
  box.replaceChildren(
    ...matches.map((entry) => {
      const button = h('button', { type: 'button', 'data-command': entry.label }, [
        h('strong', {}, [`/${entry.label}`]),
        h('span', { class: 'desc' }, [entry.description]),
      ]);
      button.addEventListener('click', () => chooseEntry(entry));
      return h('li', {}, [button]);
    }),
  );
  box.hidden = matches.length === 0;
}

/** @param {Entry} entry */
function chooseEntry(entry) {
  state.entry = entry;
  const input = /** @type {HTMLInputElement} */ ($('input'));
  input.value = `/${entry.label}`;
  $('suggestions').hidden = true;
  const box = $('command-options');
  box.replaceChildren(...entry.options.map((option) => optionField(entry, option)));
  const first = box.querySelector('input, select');
  if (first instanceof HTMLElement) first.focus();
}

/**
 * @param {Entry} entry
 * @param {CommandOption} option
 */
function optionField(entry, option) {
  const label = h('label', {}, [option.name, option.required ? h('span', { class: 'req' }, ['*']) : null]);
  const wrap = h('div', { class: 'option', title: option.description ?? '' }, [label]);
  /** @type {HTMLInputElement | HTMLSelectElement} */
  let control;
  if (option.choices?.length || option.type === 5 || option.type === 6 || option.type === 7) {
    /** @type {{ value: string, label: string }[]} */
    const items =
      option.type === 5
        ? [
            { value: 'true', label: 'True' },
            { value: 'false', label: 'False' },
          ]
        : option.type === 6
          ? state.users.map((user) => ({ value: user.id, label: user.name }))
          : option.type === 7
            ? currentGuild().channels.map((channel) => ({ value: channel.id, label: `#${channel.name}` }))
            : (option.choices ?? []).map((choice) => ({ value: String(choice.value), label: choice.name }));
    control = h('select', {}, [
      h('option', { value: '' }, ['—']),
      ...items.map((item) => h('option', { value: item.value }, [item.label])),
    ]);
  } else {
    control = h('input', { type: option.type === 4 || option.type === 10 ? 'number' : 'text' });
    if (option.autocomplete) attachAutocomplete(entry, option, control);
  }
  control.dataset['option'] = option.name;
  control.dataset['type'] = String(option.type);
  wrap.append(control);
  return wrap;
}

/**
 * @param {Entry} entry
 * @param {CommandOption} option
 * @param {HTMLInputElement} input
 */
function attachAutocomplete(entry, option, input) {
  const list = h('ul', { class: 'choices', 'data-choices-for': option.name });
  list.hidden = true;
  let asked = 0;
  let timer = 0;
  const ask = async () => {
    const turn = ++asked;
    try {
      const choices = /** @type {Choice[]} */ (
        await api('/api/autocomplete', { ...commandBody(entry, option.name), focused: option.name })
      );
      if (turn !== asked) return;
      list.replaceChildren(
        ...choices.map((choice) => {
          const button = h('button', { type: 'button', 'data-value': String(choice.value) }, [choice.name]);
          button.addEventListener('click', () => {
            // A choice is final: a question still pending for what was typed must not reopen the
            // list or drop the chosen value (the bot would get the choice's name instead).
            clearTimeout(timer);
            asked++;
            input.value = choice.name;
            input.dataset['value'] = String(choice.value);
            list.hidden = true;
          });
          return h('li', {}, [button]);
        }),
      );
      list.hidden = choices.length === 0;
    } catch {
      list.hidden = true;
    }
  };
  input.addEventListener('input', () => {
    delete input.dataset['value'];
    clearTimeout(timer);
    timer = window.setTimeout(() => void ask(), 150);
  });
  input.addEventListener('focus', () => void ask());
  input.parentElement?.append(list);
  queueMicrotask(() => input.parentElement?.append(list));
}

/**
 * The slash payload from the composer. `focused` keeps the half-typed option as text.
 * @param {Entry} entry
 * @param {string} [focused]
 */
function commandBody(entry, focused) {
  /** @type {Record<string, string | number | boolean>} */
  const options = {};
  for (const control of $('command-options').querySelectorAll('[data-option]')) {
    if (!(control instanceof HTMLInputElement || control instanceof HTMLSelectElement)) continue;
    const name = control.dataset['option'] ?? '';
    const raw = name === focused ? control.value : (control.dataset['value'] ?? control.value);
    if (raw === '' && name !== focused) continue;
    const type = Number(control.dataset['type']);
    options[name] = type === 4 || type === 10 ? Number(raw) : type === 5 ? raw === 'true' : raw;
  }
  return {
    channelId: state.channelId,
    userId: state.userId,
    name: entry.name,
    ...(entry.group ? { subcommandGroup: entry.group } : {}),
    ...(entry.sub ? { subcommand: entry.sub } : {}),
    options,
  };
}

function clearComposer() {
  state.entry = null;
  /** @type {HTMLInputElement} */ ($('input')).value = '';
  $('command-options').replaceChildren();
  $('suggestions').hidden = true;
}

/** @param {SubmitEvent} event */
async function submit(event) {
  event.preventDefault();
  $('error').hidden = true;
  const text = /** @type {HTMLInputElement} */ ($('input')).value.trim();
  if (!state.entry) {
    const exact = entries().find((entry) => `/${entry.label}` === text);
    if (exact && exact.options.length === 0) state.entry = exact;
    else if (exact) return chooseEntry(exact);
    else {
      if (text !== '') showError('Only slash commands reach the bot here: type / and pick one.');
      return;
    }
  }
  try {
    await api('/api/slash', commandBody(state.entry));
    clearComposer();
  } catch (error) {
    showError(error);
  }
}

// ------------------------------------------------------------ layout

function currentGuild() {
  return state.guilds.find((guild) => guild.id === state.guildId) ?? /** @type {Guild} */ (state.guilds[0]);
}

function renderChrome() {
  $('guilds').replaceChildren(
    ...state.guilds.map((guild) => {
      const button = h('button', { class: 'guild-icon', title: guild.name, type: 'button' }, [
        guild.name
          .split(/\s+/)
          .map((word) => word.slice(0, 1))
          .join('')
          .slice(0, 3),
      ]);
      button.addEventListener('click', () => void openGuild(guild.id));
      return button;
    }),
  );
  const guild = currentGuild();
  $('guild-name').textContent = guild.name;
  $('channels').replaceChildren(
    ...guild.channels.map((channel) => {
      const button = h(
        'button',
        {
          type: 'button',
          class: channel.id === state.channelId ? 'active' : '',
          'data-channel': channel.name,
        },
        [`# ${channel.name}`],
      );
      button.addEventListener('click', () => {
        state.channelId = channel.id;
        renderChrome();
        restartPoll();
      });
      return h('li', {}, [button]);
    }),
  );
  $('channel-name').textContent = `# ${channelName(state.channelId)}`;
  $('user-note').textContent = state.users.find((user) => user.id === state.userId)?.note ?? '';
}

/** @param {string} guildId */
async function openGuild(guildId) {
  state.guildId = guildId;
  state.channelId = currentGuild().channels[0]?.id ?? '';
  state.commands = /** @type {Command[]} */ (
    await api(`/api/commands?guildId=${encodeURIComponent(guildId)}`)
  );
  renderChrome();
  restartPoll();
}

/** @param {number} now */
function showClock(now) {
  state.clockOffset = now - Date.now();
  const offset = Math.round(state.clockOffset / 60_000);
  $('clock').textContent =
    `${new Date(now).toLocaleString()}${offset > 0 ? ` (+${Math.round(offset / 6) / 10} h)` : ''}`;
}

async function start() {
  const data = /** @type {{ guilds: Guild[], users: User[], hints?: string[], now: number }} */ (
    await api('/api/state')
  );
  state.guilds = data.guilds;
  state.users = data.users;
  const hints = data.hints ?? [];
  $('hints').replaceChildren(...hints.map((hint) => h('p', { class: 'hint' }, [hint])));
  $('hints').hidden = hints.length === 0;
  state.userId = new URLSearchParams(location.search).get('user') ?? state.users[0]?.id ?? '';
  showClock(data.now);
  setInterval(() => showClock(Date.now() + state.clockOffset), 1_000);
  const userSelect = /** @type {HTMLSelectElement} */ ($('user'));
  userSelect.replaceChildren(...state.users.map((user) => h('option', { value: user.id }, [user.name])));
  userSelect.value = state.userId;
  userSelect.addEventListener('change', () => {
    state.userId = userSelect.value;
    clearComposer();
    renderChrome();
    restartPoll();
  });
  for (const button of document.querySelectorAll('#time button')) {
    button.addEventListener('click', () => {
      const advance = button.getAttribute('data-advance');
      void api('/api/time', advance === null ? { reset: true } : { advanceMs: Number(advance) }).then(
        (answer) => showClock(/** @type {{ now: number }} */ (answer).now),
        (/** @type {unknown} */ error) => showError(error),
      );
    });
  }
  const input = /** @type {HTMLInputElement} */ ($('input'));
  input.addEventListener('input', () => {
    if (state.entry && input.value !== `/${state.entry.label}`) {
      state.entry = null;
      $('command-options').replaceChildren();
    }
    showSuggestions();
  });
  $('composer').addEventListener('submit', (event) => void submit(/** @type {SubmitEvent} */ (event)));
  const list = $('messages');
  list.addEventListener('scroll', () => {
    stickToBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 80;
  });
  const first = state.guilds[0];
  if (first) await openGuild(first.id);
}

void start();
