import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { SignInForm } from "@/components/auth/sign-in-form";

describe("the sign-in form before its scripts run", () => {
  const html = renderToStaticMarkup(
    createElement(SignInForm, { next: "/", options: { oidcName: null, passwordForm: true, directoryPasswords: false }, ssoError: null }),
  );

  it("cannot be submitted: the button waits for the form's own handler", () => {
    expect(html).toMatch(/<button type="submit" disabled=""/);
  });

  it("would post, never put the password into the address", () => {
    expect(html).toMatch(/<form [^>]*method="post"/);
  });
});
