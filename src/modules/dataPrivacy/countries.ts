/**
 * Countries by their ISO 3166-1 alpha-2 codes, as transfers and data-map fields store them; screens show the English
 * short name (Intl.DisplayNames). The EEA and the adequacy decisions of the European Commission decide which
 * destinations a transfer may name and when "adequacy decision" is a safeguard (docs/data-privacy.md).
 */
export const COUNTRY_CODES = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR ' +
  'CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT ' +
  'HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO ' +
  'MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE ' +
  'SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ' +
  'ZA ZM ZW'
).split(' ');

/** The European Economic Area: the 27 EU member states, Iceland, Liechtenstein and Norway. A transfer leaves it. */
export const EEA_COUNTRIES = new Set((
  'AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE IS LI NO'
).split(' '));

/**
 * Countries with an adequacy decision of the European Commission under Art. 45 (for Canada: commercial organisations
 * under PIPEDA; for the United States: organisations certified under the EU-US Data Privacy Framework).
 */
export const ADEQUATE_COUNTRIES = new Set('AD AR CA CH FO GB GG IL IM JE JP KR NZ US UY'.split(' '));

const names = new Intl.DisplayNames(['en'], { type: 'region' });

/** The name of a country code ("US" reads "United States"); the code itself for a code no name is known for. */
export const countryName = (code: string | null | undefined): string => (code ? names.of(code) ?? code : '');

/** The codes in their names' order ("Åland Islands" after "Afghanistan"): a list sorted by destination reads alphabetically. */
export const COUNTRIES_BY_NAME: readonly string[] = [...COUNTRY_CODES].sort((a, b) => countryName(a).localeCompare(countryName(b), 'en'));

export const isCountryCode = (code: string) => COUNTRY_CODES.includes(code);

/** Every country as a choice, by name. */
export const countryChoices = (keep: (code: string) => boolean = () => true) =>
  COUNTRY_CODES.filter(keep).map((value) => ({ value, label: countryName(value) })).sort((a, b) => a.label.localeCompare(b.label));
