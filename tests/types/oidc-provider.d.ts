// oidc-provider ships no types (DefinitelyTyped's lag behind v9): what the test IdP uses.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";
  interface Account {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown> & { findAccount?: (ctx: unknown, sub: string) => Promise<Account | undefined> });
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
