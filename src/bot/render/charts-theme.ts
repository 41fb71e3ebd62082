/**
 * Colours and type for weather charts.
 *
 * Charts are drawn on an opaque dark card rather than a transparent or white background: a transparent
 * PNG puts light text on Discord's light theme (or dark text on its dark theme) and becomes unreadable in
 * one of them, and a white card glares in the dark theme most people use. A dark card with light text
 * reads as a deliberate panel in both, like an embed. The card is a shade darker than Discord's dark chat
 * background (#313338), so it still has an edge in the dark theme. Text and series colours are light
 * tones with at least 4.5:1 contrast against the card.
 */
export const CHART_THEME = {
  fontFamily: 'DejaVu Sans',
  background: '#1e1f22',
  title: '#f2f3f5',
  text: '#dbdee1',
  mutedText: '#b5bac1',
  axisLine: '#4e5058',
  gridLine: '#35373c',
  titleSize: 16,
  textSize: 12,
  /** Series colours in the order a spec without explicit colours uses them. */
  palette: ['#ff9f43', '#4ea8ff', '#7bd88f', '#e879f9', '#facc15'],
  temperature: '#ff9f43',
  temperatureLow: '#5ec8e5',
  /** Neutral, so a range between two coloured lines does not read as a third quantity. */
  band: '#c9cdd4',
  precipitation: '#4ea8ff',
  /** Muted against the temperature line, since a chance is softer information than an amount. */
  precipitationProbability: '#3b6a98',
} as const;

/**
 * Advance widths of DejaVu Sans and DejaVu Sans Bold for U+0020 to U+007E, in thousandths of an em, read
 * from the fonts' `hmtx` tables. echarts lays text out before resvg draws it and, without a canvas, guesses
 * widths from Helvetica-like metrics; DejaVu is about 12 % wider, enough for legend entries to overlap.
 */
const DEJAVU_SANS_WIDTHS = [
  318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636, 636,
  636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295,
  295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838,
  500, 500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521,
  392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
] as const;
const DEJAVU_SANS_BOLD_WIDTHS = [
  348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696, 696, 696,
  696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 580, 1000, 774, 762, 734, 830, 683, 683, 821, 837, 372,
  372, 775, 637, 995, 837, 850, 733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457, 365, 457, 838,
  500, 500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687, 716, 716, 493, 595,
  478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838,
] as const;

/** Per-character widths, in em, of what the tables leave out. */
const DEGREE_SIGN_EM = 0.5;
const OTHER_EM = { regular: 0.62, bold: 0.68 } as const;

/**
 * The width in pixels of `text` set in DejaVu Sans, for a CSS font shorthand such as
 * `bold 16px DejaVu Sans, sans-serif`. Characters beyond ASCII other than ° get the average Latin-1 width.
 */
export function dejaVuTextWidth(text: string, font = '12px sans-serif'): number {
  const size = Number(/(\d+(?:\.\d+)?)px/.exec(font)?.[1] ?? 12);
  const bold = /\bbold(?:er)?\b|\b[6-9]00\b/.test(font);
  const table: readonly number[] = bold ? DEJAVU_SANS_BOLD_WIDTHS : DEJAVU_SANS_WIDTHS;
  let em = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const ascii = table[code - 0x20];
    if (ascii !== undefined) em += ascii / 1000;
    else if (code === 0xb0) em += DEGREE_SIGN_EM;
    else em += bold ? OTHER_EM.bold : OTHER_EM.regular;
  }
  return em * size;
}
