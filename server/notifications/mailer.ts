import nodemailer, { type Transporter } from "nodemailer";
import { env } from "@/server/core/env";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Sends one mail; throws when the SMTP server refuses it or cannot be reached. */
export type SendMail = (message: MailMessage) => Promise<void>;

/**
 * The SMTP transport of GPUDESK_SMTP_URL (nodemailer), or null when mail is
 * not configured. smtp:// upgrades with STARTTLS when the server offers it.
 */
export function smtpMailer(options: { url?: string; from?: string; timeoutMs?: number } = {}): SendMail | null {
  const url = options.url ?? env().GPUDESK_SMTP_URL;
  if (!url) return null;
  const from = options.from ?? env().GPUDESK_SMTP_FROM;
  const timeout = options.timeoutMs ?? 20_000;
  const transport: Transporter = nodemailer.createTransport(url, { from });
  Object.assign(transport.options, { connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout });
  return async (message) => {
    await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text, html: message.html });
  };
}

export function mailConfigured(): boolean {
  return Boolean(env().GPUDESK_SMTP_URL);
}
