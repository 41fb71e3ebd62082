/**
 * The custom ids of every music button: the whole state a button needs, so it works after a restart
 * and after its interaction token expired. `owner` is the member who ran the command: only they may
 * use buttons that act on their account or change the message.
 */
import { customIdCodec, field } from '../custom-id.js';

/** `malb:<owner>:<album>:<page>:<action>`. Save and Remove act for whoever clicks; paging is the owner's. */
export const albumButton = customIdCodec('malb', {
  owner: field.snowflake(),
  album: field.id(22),
  page: field.int(),
  action: field.oneOf('save', 'remove', 'prev', 'next'),
});

/** `mplay:<owner>:<action>:<device>`; an empty device means "the active one". */
export const playerButton = customIdCodec('mplay', {
  owner: field.snowflake(),
  action: field.oneOf('pause', 'next', 'refresh', 'device'),
  device: field.id(64),
});

/** `mpage:<owner>:<playlist>:<page>:<nav>`: the page to show (0-based); `nav` keeps the ids unique. */
export const playlistPageButton = customIdCodec('mpage', {
  owner: field.snowflake(),
  playlist: field.id(22),
  page: field.int(),
  nav: field.oneOf('first', 'prev', 'next', 'last'),
});

/** `mprm:<owner>:<playlist>:<from>:<count>:<check>`: `check` fingerprints the items shown. */
export const removeConfirmButton = customIdCodec('mprm', {
  owner: field.snowflake(),
  playlist: field.id(22),
  from: field.int(),
  count: field.int(),
  check: field.id(16),
});

/** `mprep:<owner>:<playlist>:<token>`: `token` names the new items, kept for 15 minutes. */
export const replaceConfirmButton = customIdCodec('mprep', {
  owner: field.snowflake(),
  playlist: field.id(22),
  token: field.id(16),
});

/** `mcancel:<owner>:<kind>`. */
export const cancelButton = customIdCodec('mcancel', {
  owner: field.snowflake(),
  kind: field.oneOf('remove', 'replace'),
});

/** Whether `device` fits in a player button (service device ids are 40 hex characters). */
export function encodableDeviceId(device: string | null): device is string {
  return device !== null && device !== '' && /^[A-Za-z0-9_-]{1,64}$/.test(device);
}
