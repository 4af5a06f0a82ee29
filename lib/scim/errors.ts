/** SCIM's error response (RFC 7644 §3.12): `{schemas: [Error], status: "400", scimType?, detail}`. */
export const SCIM_ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";

export type ScimType = "invalidFilter" | "tooMany" | "uniqueness" | "mutability" | "invalidSyntax" | "invalidPath" | "noTarget" | "invalidValue" | "invalidVers" | "sensitive";

export class ScimError extends Error {
  constructor(
    readonly status: number,
    detail: string,
    readonly scimType?: ScimType,
  ) {
    super(detail);
  }

  body() {
    return { schemas: [SCIM_ERROR], status: String(this.status), ...(this.scimType ? { scimType: this.scimType } : {}), detail: this.message };
  }
}

export const notFound = (what: string) => new ScimError(404, `${what} not found.`);
export const badValue = (detail: string) => new ScimError(400, detail, "invalidValue");
