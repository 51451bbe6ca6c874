import { createInterface } from "node:readline";
import type { Command } from "commander";
import { describeDatabase, parseEnv } from "@/server/env";
import { AppError } from "@/server/errors";

/**
 * Runs a server-side command against the configured database (migrated
 * first, closed after) and says which database that was: GPUDESK_DATA_DIR
 * defaults to ./data of the current directory, so an account made elsewhere
 * would otherwise vanish silently into another file.
 */
export async function withDatabase<T>(work: () => Promise<T>): Promise<T> {
  const env = parseEnv();
  const { migrateDatabase } = await import("@/server/db/migrate");
  const { repoRoot } = await import("@/server/paths");
  const { disconnectDb } = await import("@/server/db");
  await migrateDatabase(env.DATABASE_URL, repoRoot);
  process.stderr.write(`Database: ${describeDatabase(env.DATABASE_URL)}\n`);
  try {
    return await work();
  } finally {
    await disconnectDb();
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
}

/** Asks for a password on the terminal without echoing it, twice. */
async function promptPassword(): Promise<string> {
  if (!process.stdin.isTTY) throw new AppError("bad_request", "no terminal to ask for a password: use --password-stdin");
  const ask = (question: string) =>
    new Promise<string>((resolve) => {
      const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
      const output = rl as unknown as { _writeToOutput: (text: string) => void };
      output._writeToOutput = (text: string) => {
        if (text.includes(question)) process.stderr.write(text);
      };
      rl.question(question, (answer) => {
        rl.close();
        process.stderr.write("\n");
        resolve(answer);
      });
    });
  const first = await ask("Password: ");
  const second = await ask("Again: ");
  if (first !== second) throw new AppError("bad_request", "the two passwords differ");
  return first;
}

export function registerAdminCommands(program: Command): void {
  const user = program.command("user").description("manage people");
  user
    .command("add")
    .description("create an account (the first one with --admin)")
    .argument("<username>", "sign-in name, e.g. alice")
    .option("--admin", "make the account an admin")
    .option("--name <name>", "display name")
    .option("--unix-login <login>", "Unix login on the GPU hosts (default: the username)")
    .option("--password-stdin", "read the password from standard input instead of a prompt")
    .action(async (username: string, options: { admin?: boolean; name?: string; unixLogin?: string; passwordStdin?: boolean }) => {
      const password = options.passwordStdin ? await readStdin() : await promptPassword();
      const created = await withDatabase(async () => {
        const { createUser } = await import("@/server/auth/users");
        return createUser({
          username,
          password,
          name: options.name,
          role: options.admin ? "admin" : "member",
          unixLogin: options.unixLogin,
        });
      });
      process.stderr.write(`Created ${created.role} ${created.username} (Unix login ${created.unixLogin}).\n`);
    });

  const token = program.command("token").description("manage personal API tokens");
  token
    .command("create")
    .description("create a personal API token for a person and print it (shown once)")
    .requiredOption("--user <username>", "whose token")
    .option("--label <text>", "what it is for", "created on the command line")
    .action(async (options: { user: string; label: string }) => {
      const created = await withDatabase(async () => {
        const { findUserByUsername } = await import("@/server/auth/users");
        const { createPersonalToken } = await import("@/server/auth/tokens");
        const person = await findUserByUsername(options.user);
        if (!person) throw new AppError("not_found", `No user named ${options.user}`);
        return createPersonalToken(person.id, options.label);
      });
      process.stdout.write(`${created.token}\n`);
      process.stderr.write(`Token for ${options.user} printed above, once. Use it as: Authorization: Bearer <token>\n`);
    });

  program
    .command("backup")
    .description("copy the SQLite database to FILE while the server runs (PostgreSQL: use pg_dump)")
    .argument("<file>", "where to write the copy, e.g. gpudesk-2026-12-01.db")
    .action(async (file: string) => {
      const env = parseEnv();
      const { backupDatabase } = await import("@/server/db/backup");
      const result = await backupDatabase(env.DATABASE_URL, file);
      process.stderr.write(`Backed up ${describeDatabase(env.DATABASE_URL)} to ${result.file} (${result.pages} pages, ${result.ms} ms).\n`);
    });

  const display = program.command("display").description("manage wall displays");
  display
    .command("add")
    .description("register a wall display and print its read-only token (shown once)")
    .argument("<name>", "e.g. lab-wall")
    .action(async (name: string) => {
      const created = await withDatabase(async () => {
        const { createDisplay } = await import("@/server/auth/tokens");
        return createDisplay(name);
      });
      process.stdout.write(`${created.token}\n`);
      process.stderr.write(`Display ${created.display.name}: open /display?token=<token> on the wall screen.\n`);
    });
}
