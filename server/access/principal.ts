/** Who is asking: a person (through a session or a personal token), a wall display, or nobody. */
export type Role = "member" | "admin";

export interface UserPrincipal {
  kind: "user";
  via: "session" | "token";
  /** The personal token's id when `via` is "token" (revoking it closes what it opened). */
  tokenId?: string;
  user: {
    id: string;
    username: string;
    name: string;
    role: Role;
    unixLogin: string | null;
    /** Signed in with a temporary password an admin set: only changing it is allowed until then. */
    mustChangePassword?: boolean;
  };
}

export interface DisplayPrincipal {
  kind: "display";
  display: {
    id: string;
    name: string;
    /** The admin let this display name who runs on a GPU without a booking (display names only). */
    namesUnbookedRunner: boolean;
  };
}

export type Principal = UserPrincipal | DisplayPrincipal;
