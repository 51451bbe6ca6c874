import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { E2E_MAIL_DIR, E2E_SMTP_PORT } from "../playwright.config";

/**
 * A real SMTP server for the e2e run (the smtp-server package) on
 * E2E_SMTP_PORT: every mail the gpudesk server sends lands in E2E_MAIL_DIR
 * as one JSON file ({ to, subject, text, html }) for specs to read back.
 * Returns the teardown Playwright calls at the end of the run.
 */
export default async function startSmtp(): Promise<() => Promise<void>> {
  rmSync(E2E_MAIL_DIR, { recursive: true, force: true });
  mkdirSync(E2E_MAIL_DIR, { recursive: true });
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          count += 1;
          const body = { to: mail.to ? (Array.isArray(mail.to) ? mail.to.map((to) => to.text).join(", ") : mail.to.text) : "", subject: mail.subject ?? "", text: mail.text ?? "", html: typeof mail.html === "string" ? mail.html : "" };
          writeFileSync(path.join(E2E_MAIL_DIR, `${Date.now()}-${count}.json`), JSON.stringify(body));
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(E2E_SMTP_PORT, "127.0.0.1", () => resolve());
  });
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}
