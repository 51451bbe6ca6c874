import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Where the tests of this folder find their inputs: the project's own
 * fixtures, the real corpus in ../shared (next to the checkout, absent in
 * some checkouts) and the fake nvidia-smi.
 */

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const ownFixturesDir = path.join(repoRoot, "host/collector/fixtures");
export const sharedFixturesDir = path.resolve(repoRoot, "../shared/fixtures");
export const sharedNvidiaSmiDir = path.join(sharedFixturesDir, "nvidia-smi");
export const hasSharedFixtures = existsSync(sharedNvidiaSmiDir);
export const fakeNvidiaSmiPath = path.join(repoRoot, "scripts/fake-nvidia-smi.mjs");

/**
 * A fixture of host/collector/fixtures without the capture script's
 * annotations (`# $ command`, `# exit=N`). Line endings are left alone.
 */
export function readOwnFixture(folder: string, name: string): string {
  const text = readFileSync(path.join(ownFixturesDir, folder, name), "utf8");
  return text
    .split("\n")
    .filter((line) => !/^# (\$ |exit=)/.test(line))
    .join("\n");
}

export function readSharedFixture(relative: string): string {
  return readFileSync(path.join(sharedNvidiaSmiDir, relative), "utf8");
}

export interface CaptureSection {
  /** e.g. "load :: query-compute-apps (per-process)". */
  title: string;
  /** The command after `# $ `, e.g. "nvidia-smi -L". */
  command: string;
  output: string;
}

const RULE = /^#{20,}$/;

/**
 * The sections of a multi-section capture file: a rule line, `# title`,
 * `# $ command`, a rule line, then the output up to the next rule line.
 */
export function readCaptureSections(text: string): CaptureSection[] {
  const lines = text.split("\n");
  const sections: CaptureSection[] = [];
  for (let i = 0; i + 3 < lines.length; i++) {
    if (!RULE.test(lines[i]) || !lines[i + 2].startsWith("# $ ") || !RULE.test(lines[i + 3])) continue;
    const body: string[] = [];
    let j = i + 4;
    while (j < lines.length && !RULE.test(lines[j])) body.push(lines[j++]);
    while (body.length > 0 && body[body.length - 1].trim() === "") body.pop();
    sections.push({ title: lines[i + 1].replace(/^# /, ""), command: lines[i + 2].slice(4).trim(), output: body.join("\n") });
    i = j - 1;
  }
  return sections;
}

/** The field list of a `--query-…=FIELDS` command line. */
export function queriedFields(command: string): string[] {
  const match = /--query-[a-z-]+=(\S+)/.exec(command);
  return match ? match[1].split(",") : [];
}
