/**
 * An address in the reserved `.invalid` top-level domain (RFC 2606): gpudesk
 * makes such addresses up for accounts without one of their own, so nobody
 * may choose one as theirs (it would be another account's, or a sentinel).
 */
export function isReservedAddress(email: string): boolean {
  const domain = email.slice(email.lastIndexOf("@") + 1).trim().toLowerCase().replace(/\.$/, "");
  return domain === "invalid" || domain.endsWith(".invalid");
}
