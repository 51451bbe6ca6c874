import { createInterface } from "node:readline";
import type { Command } from "commander";
import { describeDatabase, parseEnv } from "@/server/core/env";
import { withDatabase } from "@/server/core/with-database";
import { AppError } from "@/server/core/errors";
import { can } from "@/server/access/permissions";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
}

/** Asks a yes/no question on the terminal; no terminal answers no. */
async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const answer = await new Promise<string>((resolve) => rl.question(`${question} [y/N] `, resolve));
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
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
    .option("--take-over-demo", "if a demo person of the simulated fleet has this username or Unix login, take it over without asking")
    .option("--directory", "let the first OIDC or LDAP sign-in of this username take the account (bound to that identity from then on)")
    .action(async (username: string, options: { admin?: boolean; name?: string; unixLogin?: string; passwordStdin?: boolean; takeOverDemo?: boolean; directory?: boolean }) => {
      const password = options.passwordStdin ? await readStdin() : await promptPassword();
      const created = await withDatabase(async () => {
        const { createUser } = await import("@/server/auth/users");
        const input = { username, password, name: options.name, role: options.admin ? "admin" : "member", unixLogin: options.unixLogin, directoryLink: options.directory === true };
        try {
          return await createUser({ ...input, takeOverDemo: options.takeOverDemo === true });
        } catch (error) {
          if (!(error instanceof AppError) || error.code !== "demo_account") throw error;
          process.stderr.write(`${error.message}\n`);
          if (!(await confirm("Take it over?"))) throw new AppError("conflict", "Not created. Pick another name, or pass --take-over-demo");
          return createUser({ ...input, takeOverDemo: true });
        }
      });
      process.stderr.write(`Created ${created.role} ${created.username} (Unix login ${created.unixLogin}).\n`);
      // The first admin is asked: demo or lab (the fleet page asks too).
      const demo = can.administer(created) ? await withDatabase(async () => (await import("@/server/demo/demo-choice")).getDemoStatus(created)) : null;
      if (demo?.ask) {
        process.stderr.write(
          `This server runs the demo: ${demo.simulatedHosts} simulated hosts and their demo people. Is it your lab? ` +
            "Then run `gpudesk demo off` (or answer on the fleet page): the demo stops for good; real hosts are not touched.\n",
        );
      }
    });

  user
    .command("set-password")
    .description("set a person's password: a temporary one they must change at their next sign-in; their sessions end")
    .argument("<username>", "whose password")
    .option("--password-stdin", "read the password from standard input instead of a prompt")
    .option("--permanent", "the person keeps this password (no change asked at the next sign-in)")
    .action(async (username: string, options: { passwordStdin?: boolean; permanent?: boolean }) => {
      const password = options.passwordStdin ? await readStdin() : await promptPassword();
      await withDatabase(async () => {
        const { findUserByUsername } = await import("@/server/auth/users");
        const { resetPassword } = await import("@/server/auth/passwords");
        const person = await findUserByUsername(username);
        if (!person) throw new AppError("not_found", `No user named ${username}`);
        await resetPassword(person.id, { password, mustChange: !options.permanent }, null);
      });
      process.stderr.write(
        `Password of ${username.toLowerCase()} set; their sessions ended.${options.permanent ? "" : " They choose their own at the next sign-in."}\n`,
      );
    });

  program
    .command("audit")
    .description("print the audit log (admin and security actions), oldest first")
    .option("--since <span>", "only this recent, e.g. 24h, 7d, 4w", "7d")
    .option("--kind <kind>", "only one kind: user, token, host, display, webhook, policy, reservation, alert, signin, team, limit")
    .option("--person <username>", "only what this person did or had done to their account")
    .option("--json", "one JSON array (for export) instead of lines")
    .action(async (options: { since: string; kind?: string; person?: string; json?: boolean }) => {
      const { parseSpan } = await import("@/lib/domain/usage-range");
      const span = parseSpan(options.since);
      if (span === null) throw new AppError("bad_request", `--since must be a span such as 24h or 7d, not ${options.since}`);
      const entries = await withDatabase(async () => {
        const { exportAudit } = await import("@/server/access/export-audit");
        return exportAudit({ since: new Date(Date.now() - span).toISOString(), kind: options.kind, person: options.person });
      });
      if (options.json) {
        process.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
        return;
      }
      for (const entry of entries) {
        const who = entry.actor?.username ?? (entry.via === "cli" ? "(command line)" : "(system)");
        process.stdout.write(`${entry.at}  ${who}  ${entry.ip ?? "-"}  ${entry.action}  ${entry.entityType}:${entry.entityId}\n`);
      }
      process.stderr.write(`${entries.length} entries.\n`);
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
      const { backupDatabase } = await import("@/server/core/db-backup");
      const result = await backupDatabase(env.DATABASE_URL, file);
      process.stderr.write(`Backed up ${describeDatabase(env.DATABASE_URL)} to ${result.file} (${result.pages} pages, ${result.ms} ms).\n`);
    });

  const demo = program.command("demo").description("the demo (simulated fleet and demo people) or the lab");
  demo
    .command("off")
    .description("this server is the lab: stop the simulated fleet for good, retire the demo people, end the demo's bookings and alerts")
    .action(async () => {
      const said = await withDatabase(async () => {
        const { chooseDemoOrLab } = await import("@/server/demo/demo-choice");
        const { describeDemoEnded } = await import("@/lib/domain/demo-choice");
        const { ended } = await chooseDemoOrLab(null, "lab");
        return describeDemoEnded(ended!);
      });
      process.stderr.write(`${said}\n`);
    });
  demo
    .command("keep")
    .description("this server is a demo: keep the simulated fleet and stop asking")
    .action(async () => {
      await withDatabase(async () => (await import("@/server/demo/demo-choice")).chooseDemoOrLab(null, "demo"));
      process.stderr.write("Kept: this server stays a demo. `gpudesk demo off` ends it when it becomes your lab.\n");
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
