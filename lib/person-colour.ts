/**
 * One colour per person on the schedule, the same on every page and for
 * every viewer: a hue picked from the person's id, from a set spread far
 * enough apart to tell neighbours apart.
 */
const HUES = [250, 150, 25, 300, 80, 190, 340, 120, 50, 220, 275, 0];

export function personHue(personId: string): number {
  let hash = 0;
  for (let i = 0; i < personId.length; i += 1) hash = (hash * 31 + personId.charCodeAt(i)) | 0;
  return HUES[Math.abs(hash) % HUES.length];
}
