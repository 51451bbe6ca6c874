import { plugSingleSignOn } from "@/server/main/sign-in";

// Every test process signs in as the server does: with single sign-on plugged in (server/main/sign-in.ts).
plugSingleSignOn();
