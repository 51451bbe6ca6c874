import { describe, expect, it } from "vitest";
import { flag, parseArgs, UsageError } from "./args";

const spec = {
  gpus: flag.wholes([250, 1000]),
  viewers: flag.whole(50),
  quietLoad: flag.number(0),
  nice: flag.number(0, { min: -20, max: 19 }),
  out: flag.text("bench-results/x.json"),
  heap: flag.text(null),
  port: flag.whole(null, { min: 1, max: 65_535 }),
  by: flag.choice(["area", "file", "function"], "area"),
  noBrowser: flag.boolean(),
};

const errorOf = (argv: string[], options?: { positionals?: boolean }) => {
  try {
    parseArgs(argv, spec, options);
  } catch (error) {
    if (error instanceof UsageError) return error.help ? "help" : error.message;
    throw error;
  }
  return null;
};

describe("the bench scripts' flags", () => {
  it("gives every flag its default when absent", () => {
    expect(parseArgs([], spec).flags).toEqual({
      gpus: [250, 1000],
      viewers: 50,
      quietLoad: 0,
      nice: 0,
      out: "bench-results/x.json",
      heap: null,
      port: null,
      by: "area",
      noBrowser: false,
    });
  });

  it("reads values after the flag or joined with =, kebab-case names, negative values and booleans", () => {
    const { flags } = parseArgs(["--gpus", "4000", "--viewers=20", "--quiet-load", "2.5", "--nice", "-5", "--heap", "/tmp/h", "--port", "3850", "--by", "function", "--no-browser"], spec);
    expect(flags).toMatchObject({ gpus: [4000], viewers: 20, quietLoad: 2.5, nice: -5, heap: "/tmp/h", port: 3850, by: "function", noBrowser: true });
    expect(parseArgs(["--gpus", "250,1000,4000"], spec).flags.gpus).toEqual([250, 1000, 4000]);
  });

  it("refuses bad input with a message naming the flag and what it takes", () => {
    expect(errorOf(["--gpuz", "5"])).toBe("unknown option --gpuz");
    expect(errorOf(["--viewers"])).toBe("--viewers needs a value");
    expect(errorOf(["--viewers", "many"])).toBe('--viewers takes a whole number of at least 1, not "many"');
    expect(errorOf(["--viewers", "0"])).toBe('--viewers takes a whole number of at least 1, not "0"');
    expect(errorOf(["--viewers", "2.5"])).toBe('--viewers takes a whole number of at least 1, not "2.5"');
    expect(errorOf(["--viewers", ""])).toBe('--viewers takes a whole number of at least 1, not ""');
    expect(errorOf(["--nice", "-30"])).toBe('--nice takes a number from -20 to 19, not "-30"');
    expect(errorOf(["--gpus", "250,x"])).toBe('--gpus takes whole numbers of at least 1 separated by commas (e.g. 250,1000), not "250,x"');
    expect(errorOf(["--by", "line"])).toBe('--by takes area, file, function, not "line"');
    expect(errorOf(["--no-browser=yes"])).toBe("--no-browser takes no value");
    expect(errorOf(["1000"])).toBe('unexpected argument "1000"');
  });

  it("asks for the usage on --help or -h, wherever it stands", () => {
    expect(errorOf(["--help"])).toBe("help");
    expect(errorOf(["--viewers", "5", "-h"])).toBe("help");
  });

  it("returns arguments that are not flags in order, where the script takes them", () => {
    expect(parseArgs(["a.cpuprofile", "--by", "file", "b.cpuprofile"], spec, { positionals: true })).toEqual({
      flags: expect.objectContaining({ by: "file" }),
      positionals: ["a.cpuprofile", "b.cpuprofile"],
    });
  });
});
