import path from "node:path";
import { describeDatabase, type Env } from "@/server/core/env";

/** Quotes a word for sh when it needs it. */
function shellWord(value: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The exact command that creates the first admin in the database this server
 * uses, runnable from any directory: the admin commands find the database the
 * same way the server does, relative to where they are started, which is how
 * a first account ends up in the wrong file.
 */
export function firstAdminCommand(config: Pick<Env, "DATABASE_URL" | "dataDir">, root: string): string {
  const defaultUrl = `file:${path.join(config.dataDir, "gpudesk.db")}`;
  const database =
    config.DATABASE_URL === defaultUrl
      ? `GPUDESK_DATA_DIR=${shellWord(config.dataDir)}`
      : `DATABASE_URL=${shellWord(describeDatabase(config.DATABASE_URL))}`;
  return `cd ${shellWord(root)} && ${database} npx gpudesk user add admin --admin`;
}
