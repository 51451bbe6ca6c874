/** Thrown for an agent's report that answers no request of this host: the agent is told no, nothing is audited. */
export class UnrequestedReportError extends Error {
  override name = "UnrequestedReportError";
}
