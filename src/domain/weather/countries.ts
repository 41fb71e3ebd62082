/** The country codes the geocoder takes after a place's name or postal code. */
import { foldName } from '../text.js';

/** ISO 3166-1 alpha-2: the 249 codes assigned. */
const ISO_3166_CODES =
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT ' +
  'BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ' +
  'ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT ' +
  'HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS ' +
  'LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI ' +
  'NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG ' +
  'SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
  'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW';

/** With `UK`, which ISO reserves for the United Kingdom without assigning it, and the geocoder reads as GB. */
const COUNTRY_CODES: ReadonlySet<string> = new Set([...ISO_3166_CODES.split(' '), 'UK']);

/** Whether two letters, in any case, are a country's code: `de`, `US`; not `AB`. */
export const isCountryCode = (text: string): boolean => COUNTRY_CODES.has(text.toUpperCase());

/**
 * Countries by their names in the bot's languages, as the runtime's Unicode data (CLDR) gives them:
 * `germany` and `deutschland` are DE, `united states` and `vereinigte staaten` US. English names
 * written with `&` there (`Bosnia & Herzegovina`) are known with `and` too.
 */
const COUNTRY_BY_NAME: ReadonlyMap<string, string> = new Map(
  (['en', 'de'] as const).flatMap((lang) => {
    const names = new Intl.DisplayNames([lang], { type: 'region', fallback: 'none' });
    return ISO_3166_CODES.split(' ').flatMap((code) => {
      const name = foldName(names.of(code) ?? '');
      if (name === '') return [];
      return [name, name.replaceAll(' & ', ' and ')].map((spelling) => [spelling, code] as const);
    });
  }),
);

/** The code of a country typed by its code (`de`) or its English or German name (`Germany`, `Deutschland`). */
export function countryCode(text: string): string | undefined {
  if (isCountryCode(text)) return text.toUpperCase();
  return COUNTRY_BY_NAME.get(foldName(text));
}
