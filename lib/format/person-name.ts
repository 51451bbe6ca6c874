/**
 * One way to show a person on every surface (fleet cards, schedule, display,
 * alerts, CLI, conflict notices): the display name, with the username added
 * where two people could be confused. Isomorphic: the CLI bundle uses it too.
 */

export interface NamedPerson {
  username: string;
  /** Display name; may be empty or equal to the username. */
  name: string | null;
}

function key(text: string): string {
  return text.trim().toLocaleLowerCase();
}

/** The display name, or the username where the person has none (or only repeats it). */
function shownName(person: NamedPerson): string {
  const name = person.name?.trim();
  return name ? name : person.username;
}

function needsUsername(person: NamedPerson, others: readonly NamedPerson[]): boolean {
  const shown = key(shownName(person));
  if (shown === key(person.username)) return false;
  // Another person whose display name or username reads the same would be confused with this one.
  return others.some((other) => other.username !== person.username && (key(shownName(other)) === shown || key(other.username) === shown));
}

/**
 * "Bob Member", or "Bob Member (bob)" when someone else in `among` (the
 * people shown on the same surface) has the same display name, or a
 * username that reads like this display name.
 */
export function personName(person: NamedPerson, among: readonly NamedPerson[] = []): string {
  const shown = shownName(person);
  return needsUsername(person, among) ? `${shown} (${person.username})` : shown;
}

/** `personName` for each of a list of people, judged against the whole list; keyed by username. */
export function personNames(people: readonly NamedPerson[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const person of people) names.set(person.username, personName(person, people));
  return names;
}

/** "Bob Member (bob)": the display name with the username, for places that must name the account (admin lists, audit text). */
export function personWithUsername(person: NamedPerson): string {
  const shown = shownName(person);
  // "Dave" for dave: the username is already there (case aside), and every other surface says "Dave".
  return key(shown) === key(person.username) ? shown : `${shown} (${person.username})`;
}

/** What a wall display says for a person without a display name of their own. */
export const WALL_ANONYMOUS = "a lab member";

/**
 * The name a wall display may show: the person's own display name, never a
 * login. An account made without one carries its username as its name
 * (better-auth needs a name), so a name that is exactly the username or the
 * Unix login is none; nor is a username added to tell two people apart.
 */
export function wallName(person: NamedPerson & { unixLogin?: string | null }): string | null {
  const name = person.name?.trim();
  // Exactly the login (as an account made without a name carries it); "Dave" for dave is a name someone chose.
  if (!name || name === person.username || name === person.unixLogin) return null;
  return name;
}

/**
 * Two letters for a name where it has no room: "Ada Lovelace" → "AL" (first
 * and last word), "ada" → "AD". The one rule for the avatar, the week view
 * and the wall's narrowest tiles.
 */
export function nameInitials(name: string): string {
  const words = name.trim().split(/\s+/u).filter(Boolean);
  if (words.length === 0) return "";
  const letters = words.length > 1 ? [[...words[0]!][0], [...words[words.length - 1]!][0]] : [...words[0]!].slice(0, 2);
  return letters.join("").toLocaleUpperCase();
}

/**
 * "AL" for Alice Liddell, "DA" for dave: a person in a space too narrow for
 * a name (the week view with many GPUs side by side), with the full name
 * beside it on hover. Where someone else in `among` has the same initials,
 * the first word of the name instead, so that the two are not confused.
 */
export function personInitials(person: NamedPerson, among: readonly NamedPerson[] = []): string {
  const shown = shownName(person);
  const initials = nameInitials(shown);
  const clash = among.some((other) => other.username !== person.username && nameInitials(shownName(other)) === initials);
  return clash ? shown.split(/\s+/u)[0]! : initials;
}
