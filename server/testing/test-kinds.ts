import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * Which test files are fast: pure logic, no database, no server, socket,
 * Redis or child process, no waiting on the real clock. Read from each
 * file's text (vitest.config.ts puts them in the "fast" project and the
 * rest in "sqlite"), so that a new test lands in the right one without a
 * list to keep. A file that shows any sign below is slow; a sleep with
 * fake timers in the file is not a real-time wait.
 */
export const SLOW_SIGNS: readonly { reason: string; pattern: RegExp }[] = [
  { reason: "a database", pattern: /useTestDatabase\(|migrateDatabase\(/ },
  {
    reason: "a server, socket or Redis",
    pattern: /from "node:(http|https|net)"|from "socket\.io"|@\/server\/testing\/(live-clients|agent-server|redis|slapd|oidc-provider|real-server)"|startLiveServer\(/,
  },
  { reason: "a child process", pattern: /from "node:child_process"|fakeNvidiaSmiPath|createNvidiaSmiSource\(/ },
  { reason: "a real-time wait", pattern: /setTimeout\(\s*resolve|vi\.waitFor\(|\buntil\(/ },
];

/** Why a test file is slow, or null for a fast one. */
export function slowReason(text: string): string | null {
  for (const { reason, pattern } of SLOW_SIGNS) {
    if (!pattern.test(text)) continue;
    if (reason === "a real-time wait" && /vi\.useFakeTimers\(/.test(text)) continue;
    return reason;
  }
  return null;
}

export interface TestFile {
  /** Relative to the root, "/" separators. */
  file: string;
  text: string;
}

/** Every `*.test.ts` under the folders, with its text. */
export function readTestFiles(root: string, dirs: readonly string[]): TestFile[] {
  const found: TestFile[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory()) visit(relative);
      else if (entry.name.endsWith(".test.ts")) found.push({ file: relative, text: readFileSync(path.join(root, relative), "utf8") });
    }
  };
  for (const dir of dirs) visit(dir);
  return found.sort((a, b) => a.file.localeCompare(b.file));
}
