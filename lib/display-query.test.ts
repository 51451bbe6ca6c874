import { describe, expect, it } from "vitest";
import { DEFAULT_ROTATE_SECONDS, displayAddress, parseDisplayQuery } from "@/lib/display-query";

describe("parseDisplayQuery", () => {
  it("reads the token, the host list and the page time", () => {
    expect(parseDisplayQuery({ token: "gpd_disp_abc", hosts: "rack-a1, rack-a2,,rack-a1", rotate: "15" })).toEqual({
      token: "gpd_disp_abc",
      hosts: ["rack-a1", "rack-a2"],
      rotateSeconds: 15,
      layout: "tiles",
    });
  });

  it("falls back field by field: a bad rotate keeps the token and the hosts", () => {
    expect(parseDisplayQuery({ token: "t", hosts: "a", rotate: "soon" })).toEqual({ token: "t", hosts: ["a"], rotateSeconds: DEFAULT_ROTATE_SECONDS, layout: "tiles" });
    expect(parseDisplayQuery({ rotate: "1" }).rotateSeconds).toBe(DEFAULT_ROTATE_SECONDS);
  });

  it("treats an empty token or host list as none, and takes the first of repeated parameters", () => {
    expect(parseDisplayQuery({ token: "  ", hosts: " , " })).toEqual({ token: null, hosts: null, rotateSeconds: DEFAULT_ROTATE_SECONDS, layout: "tiles" });
    expect(parseDisplayQuery({ token: ["first", "second"] }).token).toBe("first");
  });

  it("reads the overview layout, and shows the tiles for an unknown one", () => {
    expect(parseDisplayQuery({ layout: "overview" }).layout).toBe("overview");
    expect(parseDisplayQuery({ layout: " Overview " }).layout).toBe("overview");
    expect(parseDisplayQuery({ layout: "mosaic" }).layout).toBe("tiles");
    expect(parseDisplayQuery({}).layout).toBe("tiles");
  });

  it("builds the address that it reads back", () => {
    expect(displayAddress("https://desk.lab", "gpd_disp_x")).toBe("https://desk.lab/display?token=gpd_disp_x");
    const address = new URL(displayAddress("https://desk.lab", "gpd_disp_x", "overview"));
    expect(parseDisplayQuery(Object.fromEntries(address.searchParams))).toMatchObject({ token: "gpd_disp_x", layout: "overview" });
  });
});
