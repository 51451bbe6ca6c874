/**
 * Command-line flags for the bench scripts: each script declares its flags
 * once (name, kind, default, bounds) and gets them typed and checked, with
 * one clear error and its usage on bad input, and its usage on `--help`.
 *
 *   const { flags } = argsOrExit(process.argv.slice(2), { gpus: flag.whole(1000), json: flag.text(null) }, USAGE);
 *
 * A key `fooBar` is the flag `--foo-bar`; a value follows it (`--gpus 1000`)
 * or is joined to it (`--gpus=1000`), and may start with a dash (`--nice -5`).
 */

/** One flag: whether a value follows it, what it is when absent, and how its value is read. */
export interface Flag<T> {
  readonly takesValue: boolean;
  readonly fallback: T;
  /** Reads the flag's value; throws an Error naming `name` when the value does not fit. */
  parse(text: string, name: string): T;
}

/** Bad input (or `--help`): `argsOrExit` prints it with the usage. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly help = false,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

interface Bounds {
  min?: number;
  max?: number;
}

function boundsText({ min, max }: Bounds): string {
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` of at least ${min}`;
  if (max !== undefined) return ` of at most ${max}`;
  return "";
}

function readNumber(text: string, name: string, whole: boolean, bounds: Bounds): number {
  const value = text.trim() === "" ? Number.NaN : Number(text);
  const fits = Number.isFinite(value) && (!whole || Number.isInteger(value)) && !(value < (bounds.min ?? -Infinity)) && !(value > (bounds.max ?? Infinity));
  if (!fits) throw new Error(`${name} takes ${whole ? "a whole number" : "a number"}${boundsText(bounds)}, not "${text}"`);
  return value;
}

/** The kinds of flag. Whole numbers are at least 1 unless said otherwise. */
export const flag = {
  number<F extends number | null>(fallback: F, bounds: Bounds = {}): Flag<number | F> {
    return { takesValue: true, fallback, parse: (text, name) => readNumber(text, name, false, bounds) };
  },
  whole<F extends number | null>(fallback: F, bounds: Bounds = { min: 1 }): Flag<number | F> {
    return { takesValue: true, fallback, parse: (text, name) => readNumber(text, name, true, bounds) };
  },
  /** Comma-separated whole numbers: `--gpus 250,1000`. */
  wholes<F extends number[] | null>(fallback: F, bounds: Bounds = { min: 1 }): Flag<number[] | F> {
    return {
      takesValue: true,
      fallback,
      parse(text, name) {
        try {
          return text.split(",").map((part) => readNumber(part, name, true, bounds));
        } catch {
          throw new Error(`${name} takes whole numbers${boundsText(bounds)} separated by commas (e.g. 250,1000), not "${text}"`);
        }
      },
    };
  },
  text<F extends string | null>(fallback: F): Flag<string | F> {
    return { takesValue: true, fallback, parse: (text) => text };
  },
  /** One of a few words. */
  choice<const C extends string>(choices: readonly C[], fallback: C): Flag<C> {
    return {
      takesValue: true,
      fallback,
      parse(text, name) {
        if (!(choices as readonly string[]).includes(text)) throw new Error(`${name} takes ${choices.join(", ")}, not "${text}"`);
        return text as C;
      },
    };
  },
  /** Present or not: `--no-browser`. */
  boolean(): Flag<boolean> {
    return { takesValue: false, fallback: false, parse: () => true };
  },
};

type Flags = Record<string, Flag<unknown>>;
export type FlagValues<S extends Flags> = { [K in keyof S]: S[K] extends Flag<infer T> ? T : never };

const flagName = (key: string) => `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;

/**
 * Reads `argv` against `spec`. Throws a UsageError on an unknown flag, a
 * missing or unfitting value, or an argument that is not a flag (unless
 * `positionals`, which are then returned in order), and on `--help` or `-h`.
 */
export function parseArgs<S extends Flags>(argv: string[], spec: S, options: { positionals?: boolean } = {}): { flags: FlagValues<S>; positionals: string[] } {
  const byName = new Map(Object.keys(spec).map((key) => [flagName(key), key]));
  const flags = Object.fromEntries(Object.entries(spec).map(([key, kind]) => [key, kind.fallback])) as Record<string, unknown>;
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h") throw new UsageError("", true);
    if (!arg.startsWith("-") || arg === "-") {
      if (!options.positionals) throw new UsageError(`unexpected argument "${arg}"`);
      positionals.push(arg);
      continue;
    }
    const joined = /^(--[^=]+)=(.*)$/s.exec(arg);
    const name = joined ? joined[1]! : arg;
    const key = byName.get(name);
    if (key === undefined) throw new UsageError(`unknown option ${name}`);
    const kind = spec[key]!;
    if (!kind.takesValue) {
      if (joined) throw new UsageError(`${name} takes no value`);
      flags[key] = kind.parse("", name);
      continue;
    }
    let text = joined?.[2];
    if (text === undefined) {
      text = argv[i + 1];
      i += 1;
    }
    if (text === undefined) throw new UsageError(`${name} needs a value`);
    try {
      flags[key] = kind.parse(text, name);
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
  }
  return { flags: flags as FlagValues<S>, positionals };
}

/** `parseArgs` for a script's main: `--help` prints the usage and exits 0; bad input prints the error and the usage and exits 2. */
export function argsOrExit<S extends Flags>(argv: string[], spec: S, usage: string, options: { positionals?: boolean } = {}): { flags: FlagValues<S>; positionals: string[] } {
  try {
    return parseArgs(argv, spec, options);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    if (error.help) {
      console.log(usage);
      process.exit(0);
    }
    return exitWithUsage(error.message, usage);
  }
}

/** Bad input that a script finds itself (a missing file name, an argument out of place): the message and the usage, exit 2. */
export function exitWithUsage(message: string, usage: string): never {
  console.error(`${message}\n${usage}`);
  process.exit(2);
}
