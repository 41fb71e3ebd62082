import type { WeatherServices } from '../../bot/context.js';
import { localize, localizedChoice } from '../../bot/i18n/index.js';
import { WEATHER_COMMAND_TEXT } from '../../bot/i18n/weather.js';
import { answerPrivatelySoon } from '../../bot/private-answer.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { saveMemberUnits } from '../../domain/weather/prefs.js';
import { defaultUnitsFor } from '../../domain/weather/units.js';
import { WEATHER_UNITS, type WeatherUnits } from '../../services/weather/index.js';
import { weatherRequest } from './shared.js';

const { unitChoices } = WEATHER_COMMAND_TEXT;
const AUTO = 'auto';

const isUnits = (value: string): value is WeatherUnits =>
  (WEATHER_UNITS as readonly string[]).includes(value);

export default {
  name: 'units',
  build: (sub) =>
    localize(sub, WEATHER_COMMAND_TEXT.subcommands.units).addStringOption((option) =>
      localize(option, WEATHER_COMMAND_TEXT.options.units)
        .setRequired(true)
        .addChoices(
          localizedChoice(unitChoices.metric, 'metric'),
          localizedChoice(unitChoices.imperial, 'imperial'),
          localizedChoice(unitChoices.standard, 'standard'),
          localizedChoice(unitChoices.auto, AUTO),
        ),
    ),
  async execute(interaction, weather, ctx) {
    const choice = interaction.options.getString('units', true);
    const units = isUnits(choice) ? choice : undefined;
    await answerPrivatelySoon(interaction, async () => {
      const { t, storage, lang } = await weatherRequest(interaction, weather, ctx);
      await saveMemberUnits(storage, interaction.user.id, units);
      return {
        content: units
          ? t.unitsSaved(unitChoices[units][lang])
          : t.unitsReset(unitChoices[defaultUnitsFor(interaction.locale)][lang]),
      };
    });
  },
} satisfies Subcommand<WeatherServices>;
