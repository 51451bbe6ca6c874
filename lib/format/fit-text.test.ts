import { describe, expect, it } from "vitest";
import { shortenMiddle } from "@/lib/format/fit-text";

describe("shortenMiddle", () => {
  const within = (chars: number) => (text: string) => [...text].length <= chars;

  it("keeps a name that fits as it is", () => {
    expect(shortenMiddle("sim-h100-a", within(10))).toBe("sim-h100-a");
  });

  it("keeps both ends of a name that does not fit, which tell hosts of one rack apart", () => {
    expect(shortenMiddle("gpu-node-rack-b-07", within(11))).toBe("gpu-n…-b-07");
    expect(shortenMiddle("gpu-node-rack-b-08", within(11)).endsWith("08")).toBe(true);
  });

  it("never returns more than fits, down to the first letter", () => {
    expect(shortenMiddle("abcdef", within(2))).toBe("a…");
  });
});
