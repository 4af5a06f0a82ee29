import { describe, expect, it } from "vitest";
import { ScimError } from "./errors";
import { pageOf, parseFilter } from "./filter";
import { applyPatch, patchOps, PATCH_SCHEMA } from "./patch";

const USERS = ["username", "externalid", "id", "emails.value"];

describe("SCIM filter", () => {
  it("reads attribute eq \"value\" in the forms clients send", () => {
    expect(parseFilter('userName eq "a@b.test"', USERS)).toEqual({ attribute: "username", value: "a@b.test" });
    expect(parseFilter('USERNAME Eq "x\\"y"', USERS)).toEqual({ attribute: "username", value: 'x"y' });
    expect(parseFilter('emails[type eq "work"].value eq "a@b.test"', USERS)).toEqual({ attribute: "emails.value", value: "a@b.test" });
    expect(parseFilter(null, USERS)).toBeNull();
    expect(parseFilter("  ", USERS)).toBeNull();
  });

  it("refuses other operators and attributes with invalidFilter instead of guessing", () => {
    for (const f of ['userName co "a"', 'userName eq "a" and active eq true', 'title eq "x"', "userName eq a", 'userName sw "a"']) {
      expect(() => parseFilter(f, USERS), f).toThrow(ScimError);
      try {
        parseFilter(f, USERS);
      } catch (err) {
        expect((err as ScimError).scimType).toBe("invalidFilter");
      }
    }
  });

  it("bounds pages", () => {
    expect(pageOf(new URLSearchParams(""))).toEqual({ offset: 0, count: 100 });
    expect(pageOf(new URLSearchParams("startIndex=0&count=-5"))).toEqual({ offset: 0, count: 0 });
    expect(pageOf(new URLSearchParams("startIndex=11&count=5000"))).toEqual({ offset: 10, count: 200 });
  });
});

describe("SCIM patch", () => {
  const doc = { userName: "a@b.test", active: true, name: { givenName: "A" }, groups: [] };
  const ops = (Operations: unknown[]) => patchOps({ schemas: [PATCH_SCHEMA], Operations });

  it("applies path and path-less operations, case-insensitively", () => {
    expect(applyPatch(doc, ops([{ op: "replace", path: "active", value: false }]), ["groups"]).active).toBe(false);
    expect(applyPatch(doc, ops([{ op: "Replace", value: { Active: "False", "name.familyName": "B" } }]), ["groups"])).toMatchObject({ active: "False", name: { givenName: "A", familyName: "B" } });
    expect(applyPatch(doc, ops([{ op: "add", path: "name", value: { familyName: "C" } }]), ["groups"]).name).toEqual({ givenName: "A", familyName: "C" });
    expect(applyPatch(doc, ops([{ op: "replace", path: 'emails[type eq "work"].value', value: "a@b.test" }]), ["groups"])).toEqual(doc);
    expect(doc.active).toBe(true); // the input is not changed
  });

  it("refuses read-only, unknown and required paths, naming them", () => {
    const cases: [unknown[], string][] = [
      [[{ op: "replace", path: "groups", value: [] }], "mutability"],
      [[{ op: "replace", path: "title", value: "x" }], "invalidPath"],
      [[{ op: "remove", path: "active" }], "mutability"],
      [[{ op: "replace", path: "emails", value: [{ value: "other@b.test" }] }], "mutability"],
      [[{ op: "replace", value: "not an object" }], "invalidSyntax"],
    ];
    for (const [o, type] of cases) {
      try {
        applyPatch(doc, ops(o), ["groups"]);
        expect.unreachable(JSON.stringify(o));
      } catch (err) {
        expect((err as ScimError).scimType, JSON.stringify(o)).toBe(type);
      }
    }
    expect(() => patchOps({ schemas: ["x"], Operations: [] })).toThrow(ScimError);
    expect(() => patchOps({ schemas: [PATCH_SCHEMA], Operations: [{ op: "move" }] })).toThrow(ScimError);
  });
});
