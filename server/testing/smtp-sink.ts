import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";

/**
 * A real SMTP server for tests (the smtp-server package): it accepts every
 * mail on 127.0.0.1:`port` and keeps what arrived, parsed, to read back.
 * `refuse` makes it answer 451 (a temporary failure) until set back.
 */
export async function startSmtpSink(port = 0): Promise<{ url: string; port: number; mail: ParsedMail[]; refuse: { now: boolean }; close: () => Promise<void> }> {
  const mail: ParsedMail[] = [];
  const refuse = { now: false };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, callback) {
      if (refuse.now) {
        stream.resume();
        stream.on("end", () => callback(Object.assign(new Error("try again later"), { responseCode: 451 })));
        return;
      }
      simpleParser(stream)
        .then((parsed) => {
          mail.push(parsed);
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.server.address();
  const bound = typeof address === "object" && address ? address.port : port;
  return {
    url: `smtp://127.0.0.1:${bound}`,
    port: bound,
    mail,
    refuse,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
