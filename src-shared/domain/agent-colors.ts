/**
 * One colour per agent, shared by every view of a session (graph, lanes, transcript) and the
 * exports (plain TypeScript, so main and the renderer compute the same colours).
 *
 * Contract: `agentColor(name, index)` is pure and stable: the same name and index always give the
 * same `#rrggbb`. `index` is the agent's position in the fleet (0-based); the first
 * `AGENT_PALETTE.length` agents get hand-picked, well separated hues, later ones walk the hue
 * circle by the golden angle. A negative or non-integer index (an agent the fleet does not list)
 * derives the colour from the name alone. Every colour has a contrast of at least 3:1 against
 * both the light (#ffffff) and the dark (#1b1d22) background, so it reads as a border, a bar, an
 * arrow or a bold label in either theme.
 */

/** Hand-picked first colours: distinct hues, relative luminance between 0.11 and 0.30. */
export const AGENT_PALETTE: readonly string[] = [
  '#3a7be0', // blue
  '#d9622b', // orange
  '#2e9e5b', // green
  '#b455c9', // purple
  '#a88414', // amber
  '#1f9aa8', // teal
  '#e0457b', // pink
  '#7c8a2e', // olive
  '#6f6fe8', // indigo
  '#b5733a', // brown
  '#4f9a8f', // sea green
  '#c2497a', // raspberry
];

const GOLDEN_ANGLE = 137.508;
/** Target relative luminance for generated colours: the middle of the range readable on both themes. */
const TARGET_LUMINANCE = 0.19;

function channel(value: number): number {
  const unit = value / 255;
  return unit <= 0.03928 ? unit / 12.92 : ((unit + 0.055) / 1.055) ** 2.4;
}

/** WCAG relative luminance of a `#rrggbb` colour. */
export function relativeLuminance(hex: string): number {
  const red = parseInt(hex.slice(1, 3), 16);
  const green = parseInt(hex.slice(3, 5), 16);
  const blue = parseInt(hex.slice(5, 7), 16);
  return 0.2126 * channel(red) + 0.7152 * channel(green) + 0.0722 * channel(blue);
}

/** WCAG contrast ratio between two `#rrggbb` colours. */
export function contrastRatio(first: string, second: string): number {
  const a = relativeLuminance(first);
  const b = relativeLuminance(second);
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}

function hex(value: number): string {
  return Math.round(Math.min(255, Math.max(0, value)))
    .toString(16)
    .padStart(2, '0');
}

function hslToHex(hue: number, saturation: number, lightness: number): string {
  const chroma = (1 - Math.abs(2 * lightness - 1)) * saturation;
  const sector = (((hue % 360) + 360) % 360) / 60;
  const second = chroma * (1 - Math.abs((sector % 2) - 1));
  const [red, green, blue] =
    sector < 1
      ? [chroma, second, 0]
      : sector < 2
        ? [second, chroma, 0]
        : sector < 3
          ? [0, chroma, second]
          : sector < 4
            ? [0, second, chroma]
            : sector < 5
              ? [second, 0, chroma]
              : [chroma, 0, second];
  const offset = lightness - chroma / 2;
  return `#${hex((red + offset) * 255)}${hex((green + offset) * 255)}${hex((blue + offset) * 255)}`;
}

/** A colour of the given hue whose luminance is close to the target (bisection on lightness). */
function colorForHue(hue: number): string {
  let low = 0.2;
  let high = 0.8;
  let best = hslToHex(hue, 0.62, 0.5);
  for (let step = 0; step < 20; step += 1) {
    const lightness = (low + high) / 2;
    best = hslToHex(hue, 0.62, lightness);
    if (relativeLuminance(best) < TARGET_LUMINANCE) low = lightness;
    else high = lightness;
  }
  return best;
}

/** A small stable string hash (FNV-1a, 32 bit). */
function hashName(name: string): number {
  let hash = 0x811c9dc5;
  for (let position = 0; position < name.length; position += 1) {
    hash ^= name.charCodeAt(position);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

export function agentColor(name: string, index: number): string {
  if (Number.isInteger(index) && index >= 0) {
    if (index < AGENT_PALETTE.length) return AGENT_PALETTE[index] ?? AGENT_PALETTE[0]!;
    // Offset by half a step so generated hues do not land on the palette's first ones.
    return colorForHue(17 + (index - AGENT_PALETTE.length) * GOLDEN_ANGLE);
  }
  return colorForHue(hashName(name) % 360);
}
