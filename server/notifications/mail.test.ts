import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSmtpSink } from "@/server/testing/smtp-sink";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Mail to a person, end to end against a real SMTP server the test starts:
 * the reminder is derived from the stored booking, given once however often
 * it is looked for (a restart, a new leader), queued, sent by the mail
 * worker and retried when the server refuses.
 */

let sink: Awaited<ReturnType<typeof startSmtpSink>>;

beforeAll(async () => {
  sink = await startSmtpSink();
  process.env.GPUDESK_SMTP_URL = sink.url;
  process.env.GPUDESK_SMTP_FROM = "gpudesk test <gpudesk@test.invalid>";
  await useTestDatabase();
}, 120_000);

afterAll(async () => {
  await sink?.close();
});

async function personWithBooking(options: { email: string; endsInMinutes: number }) {
  const { createTestHost, createTestUser } = await import("@/server/testing/booking-fixtures");
  const { createBooking } = await import("@/server/bookings/commands/create-booking");
  const { updateNotificationSettings } = await import("@/server/notifications/notification-preferences");
  const host = await createTestHost(1);
  const person = await createTestUser();
  await updateNotificationSettings(person.id, { email: options.email });
  const now = new Date();
  const booking = await createBooking(person, { host: host.name, gpus: [0], durationMinutes: options.endsInMinutes, purpose: "fine-tune llama" }, { now });
  return { person, booking, host, now };
}

describe("mail to a person", () => {
  it("sends 'ends in 15 minutes' once, as text and HTML with a link, to the SMTP server", async () => {
    const { sendBookingReminders } = await import("@/server/notifications/booking-reminders");
    const { MailWorker } = await import("@/server/notifications/mail-worker");
    const { smtpMailer } = await import("@/server/notifications/mailer");
    const { db } = await import("@/server/core/db");
    const email = `ends-${Date.now()}@lab.test`;
    const { booking, host } = await personWithBooking({ email, endsInMinutes: 10 });
    const at = new Date(Date.now() + 1000);

    expect(await sendBookingReminders(at, { publicUrl: "https://gpudesk.lab.test" })).toBe(1);
    // Looked at again (the next pass, a restart, another leader): nothing more.
    expect(await sendBookingReminders(new Date(at.getTime() + 30_000), { publicUrl: "https://gpudesk.lab.test" })).toBe(0);
    const queued = await db().mailDelivery.findMany({ where: { to: email }, select: { event: true, subjectId: true, status: true } });
    expect(queued).toEqual([{ event: "booking.ends_soon", subjectId: booking.id, status: "pending" }]);

    const worker = new MailWorker({ send: smtpMailer()!, now: () => at.getTime() + 1000 });
    expect(await worker.runOnce()).toBeGreaterThanOrEqual(1);
    const arrived = sink.mail.filter((mail) => mail.to && JSON.stringify(mail.to).includes(email));
    expect(arrived).toHaveLength(1);
    expect(arrived[0].subject).toBe(`[gpudesk] Your booking of GPU 0 on ${host.name} ends in 10 minutes`);
    expect(arrived[0].from?.text).toContain("gpudesk@test.invalid");
    expect(arrived[0].text).toContain(`"fine-tune llama"`);
    expect(arrived[0].text).toContain("https://gpudesk.lab.test/reservations");
    expect(arrived[0].html).toContain('<a href="https://gpudesk.lab.test/reservations">');
    expect((await db().mailDelivery.findFirstOrThrow({ where: { to: email }, select: { status: true } })).status).toBe("delivered");
  });

  it("sends nothing by mail when the person chose the page only, and gives the page notice", async () => {
    const { sendBookingReminders } = await import("@/server/notifications/booking-reminders");
    const { updateNotificationSettings } = await import("@/server/notifications/notification-preferences");
    const { onPersonNotice } = await import("@/server/notifications/notify-person");
    const { db } = await import("@/server/core/db");
    const email = `page-only-${Date.now()}@lab.test`;
    const { person } = await personWithBooking({ email, endsInMinutes: 12 });
    await updateNotificationSettings(person.id, { preferences: [{ event: "booking.ends_soon", onPage: true, byMail: false }] });
    const heard: string[] = [];
    const stop = onPersonNotice((notice) => heard.push(`${notice.userId}:${notice.event}`));
    await sendBookingReminders(new Date(Date.now() + 1000));
    stop();
    expect(heard).toContain(`${person.id}:booking.ends_soon`);
    expect(await db().mailDelivery.count({ where: { to: email } })).toBe(0);
  });

  it("retries a mail the SMTP server refuses, and the delivery log shows the error", async () => {
    const { notifyPerson } = await import("@/server/notifications/notify-person");
    const { MailWorker } = await import("@/server/notifications/mail-worker");
    const { smtpMailer } = await import("@/server/notifications/mailer");
    const { RETRY_BACKOFF_MS } = await import("@/server/notifications/deliveries");
    const { db } = await import("@/server/core/db");
    const email = `retry-${Date.now()}@lab.test`;
    const { person, booking } = await personWithBooking({ email, endsInMinutes: 60 });
    await notifyPerson({ userId: person.id, event: "booking.changed_by_admin", subjectId: booking.id, title: "An admin shortened your booking", text: "It ends earlier now.", path: "/reservations" });

    let clock = Date.now() + 1000;
    const worker = new MailWorker({ send: smtpMailer()!, now: () => clock });
    sink.refuse.now = true;
    await worker.runOnce();
    const failed = await db().mailDelivery.findFirstOrThrow({ where: { to: email }, select: { status: true, attempts: true, lastError: true } });
    expect(failed).toMatchObject({ status: "pending", attempts: 1 });
    expect(failed.lastError).toContain("451");

    sink.refuse.now = false;
    clock += RETRY_BACKOFF_MS[0] + 1000;
    await worker.runOnce();
    expect(await db().mailDelivery.findFirstOrThrow({ where: { to: email }, select: { status: true, attempts: true } })).toEqual({ status: "delivered", attempts: 2 });
    expect(sink.mail.some((mail) => mail.subject === "[gpudesk] An admin shortened your booking")).toBe(true);
  });
});
