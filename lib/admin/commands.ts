/**
 * The admin CLI's commands as one function: argv in, output lines and an exit code out. The CLI
 * runs it against the database directly (PostgreSQL, or PGlite when no server holds it) or
 * through the running server's local admin endpoint (PGlite in use by the server).
 */
import { recordAudit } from "../audit/record";
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { and, eq, sql } from "drizzle-orm";
import type { DB } from "../../db/client";
import { accounts, apiKeys, models, users } from "../../db/schema";
import { createUser, findUserByEmail, normalizeEmail } from "../auth/users";
import { hashPassword, passwordProblem } from "../auth/password";
import { adminDebit, waitForSpendable } from "../billing/admin-debit";
import { applyLedgerChange } from "../billing/ledger";
import { formatUsd, parseUsd } from "../billing/money";
import { notifyInvalidation } from "../invalidation";
import { announceNewKey, createKey, revokeKey } from "../keys/manage";
import { createInvite, MAX_INVITE_DAYS } from "../auth/invites";
import { batchCsv, batchProblem, createBatch } from "../redeem/batches";
import { IdentityCommandError, runIdentityCommand } from "./identity-commands";

export interface CommandResult {
  exitCode: number;
  stdout: string[];
  stderr: string[];
}

class UsageError extends Error {}
class CommandError extends Error {}

type Opts = Record<string, { type: "string" | "boolean" }>;

function parse(rawArgs: string[], options: Opts, positionals = 0) {
  // `--usd -5` would read as two options: keep a negative number with its flag so it gets a clear error.
  const args: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i]!;
    const next = rawArgs[i + 1];
    if (a.startsWith("--") && !a.includes("=") && next !== undefined && /^-\d/.test(next)) {
      args.push(`${a}=${next}`);
      i++;
    } else args.push(a);
  }
  try {
    const r = parseArgs({ args, options, strict: true, allowPositionals: positionals > 0 });
    if (r.positionals.length > positionals) throw new UsageError(`unexpected argument "${r.positionals[positionals]}"`);
    return { values: r.values as Record<string, string | boolean | undefined>, positionals: r.positionals };
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError((err as Error).message.split("\n")[0]!);
  }
}

function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const v = values[name];
  if (typeof v !== "string" || v.trim() === "") throw new UsageError(`--${name} is required`);
  return v.trim();
}

function email(values: Record<string, string | boolean | undefined>): string {
  const e = normalizeEmail(required(values, "email"));
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(e)) throw new CommandError(`"${e}" is not an email address`);
  return e;
}

function positive(values: Record<string, string | boolean | undefined>, name: string): number {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 1) throw new CommandError(`--${name} must be a positive whole number, got "${values[name]}"`);
  return n;
}

function usd(values: Record<string, string | boolean | undefined>, name: string): number {
  const raw = required(values, name);
  if (raw.startsWith("-")) throw new CommandError(`--${name} must be positive, got ${raw}`);
  const micro = parseUsd(raw);
  if (micro === null) throw new CommandError(`--${name} must be a USD amount like 10 or 0.25 (at most 6 decimals), got "${raw}"`);
  if (micro === 0) throw new CommandError(`--${name} must be greater than zero`);
  return micro;
}

async function userByEmail(db: DB, e: string) {
  const u = await findUserByEmail(db, e);
  if (!u) throw new CommandError(`no user with email ${e}`);
  return u;
}

/** The organisation a money command acts on: `--org ID`, or the personal one of `--email E`. */
async function targetAccount(db: DB, values: Record<string, string | boolean | undefined>): Promise<{ accountId: string; label: string }> {
  if (values.org !== undefined && values.email !== undefined) throw new UsageError("give --email or --org, not both");
  if (values.org === undefined) {
    const u = await userByEmail(db, email(values));
    return { accountId: u.accountId, label: u.email };
  }
  const id = required(values, "org");
  const [a] = await db.select({ id: accounts.id, name: accounts.name }).from(accounts).where(eq(accounts.id, id));
  if (!a) throw new CommandError(`no organisation with id ${id} (npm run admin -- org list)`);
  return { accountId: a.id, label: `organisation "${a.name}"` };
}

/** An action on an account is that organisation's event too (its audit export and webhook). */
async function audit(db: DB, action: string, targetType: string, targetId: string, details: Record<string, unknown>) {
  await recordAudit(db, { actorUserId: null, actor: "cli", action, targetType, targetId, details, accountId: targetType === "account" ? targetId : null });
}

/** One admin command: its usage after the name, and what it does (output lines go to `out`). */
interface Command {
  usage: string;
  run(db: DB, args: string[], out: string[]): Promise<void>;
}

async function setUserDisabled(db: DB, args: string[], out: string[], disabled: boolean): Promise<void> {
  const { values } = parse(args, { email: { type: "string" } });
  const u = await userByEmail(db, email(values));
  await db.update(users).set({ disabled, sessionVersion: sql`${users.sessionVersion} + 1` }).where(eq(users.id, u.id));
  await db.execute(sql`update accounts set disabled = ${disabled} where id = ${u.accountId}`);
  await audit(db, `user.${disabled ? "disable" : "enable"}`, "user", u.id, {});
  await notifyInvalidation({ kind: "accounts", ids: [u.accountId] });
  out.push(`${disabled ? "disabled" : "enabled"} ${u.email}`);
}

async function ledgerChange(db: DB, args: string[], out: string[], cmd: "credit" | "debit"): Promise<void> {
  const { values } = parse(args, { email: { type: "string" }, org: { type: "string" }, usd: { type: "string" }, note: { type: "string" } });
  const amount = usd(values, "usd");
  const note = typeof values.note === "string" ? values.note : undefined;
  if (cmd === "debit" && !note?.trim()) throw new UsageError("--note is required for a debit");
  const u = await targetAccount(db, values);
  const change = {
    accountId: u.accountId,
    idempotencyKey: `cli:${cmd}:${randomUUID()}`,
    note: note ?? "admin credit",
  };
  // A debit takes only money no request is using (admin-debit.ts); a credit is never refused.
  const r =
    cmd === "credit"
      ? await applyLedgerChange(db, { ...change, deltaMicroUsd: amount, kind: "admin_credit" })
      : await waitForSpendable(db, u.accountId, amount).then(() => adminDebit(db, { ...change, deltaMicroUsd: -amount }));
  if (!r.ok) {
    throw new CommandError(
      r.reason === "held"
        ? `debit of ${formatUsd(amount)} USD refused: ${r.message}`
        : r.reason === "insufficient_balance"
          ? `debit of ${formatUsd(amount)} USD would take the balance below zero`
          : "account not found",
    );
  }
  if (!r.applied) throw new CommandError("duplicate change");
  const signed = cmd === "credit" ? amount : -amount;
  await audit(db, `account.${cmd}`, "account", u.accountId, { micro_usd: amount, note, before: { balanceMicroUsd: r.balanceAfterMicroUsd - signed }, after: { balanceMicroUsd: r.balanceAfterMicroUsd } });
  out.push(`${cmd === "credit" ? "credited" : "debited"} ${formatUsd(amount)} USD ${cmd === "credit" ? "to" : "from"} ${u.label}; balance ${formatUsd(r.balanceAfterMicroUsd)} USD`);
}

/** SCIM tokens and verified domains (identity-commands.ts): `--org`, `--domain`. */
function identity(name: string, usage: string): Command {
  return {
    usage,
    async run(db, args, out) {
      const { values } = parse(args, { org: { type: "string" }, domain: { type: "string" } });
      try {
        out.push(...((await runIdentityCommand(db, name, values)) ?? []));
      } catch (err) {
        throw err instanceof IdentityCommandError ? new CommandError(err.message) : err;
      }
    },
  };
}

/** The commands, by name (one to three words); `help` and the usage text are made from them. */
const COMMANDS: Record<string, Command> = {
  "user create": {
    usage: `--email E [--password P] [--admin]`,
    async run(db, args, out) {
      const { values } = parse(args, { email: { type: "string" }, password: { type: "string" }, admin: { type: "boolean" } });
      const e = email(values);
      const password = typeof values.password === "string" ? values.password : undefined;
      const problem = password !== undefined ? passwordProblem(password) : null;
      if (problem) throw new CommandError(`--password: ${problem}`);
      const r = await createUser(db, { email: e, password, admin: values.admin === true, via: "cli" });
      if (!r.ok) throw new CommandError(`a user with email ${e} already exists`);
      const u = r.value;
      out.push(`created user ${u.id} (${u.email}, ${u.role}) with account ${u.accountId}`);
    },
  },
  "user set-password": {
    usage: `--email E --password P`,
    async run(db, args, out) {
      const { values } = parse(args, { email: { type: "string" }, password: { type: "string" } });
      const u = await userByEmail(db, email(values));
      const password = required(values, "password");
      const problem = passwordProblem(password);
      if (problem) throw new CommandError(`--password: ${problem}`);
      await db
        .update(users)
        .set({ passwordHash: await hashPassword(password), sessionVersion: sql`${users.sessionVersion} + 1` })
        .where(eq(users.id, u.id));
      await audit(db, "user.set_password", "user", u.id, {});
      out.push(`password changed for ${u.email}; their console sessions were signed out`);
    },
  },
  "user disable": { usage: `--email E`, run: (db, args, out) => setUserDisabled(db, args, out, true) },
  "user enable": { usage: `--email E`, run: (db, args, out) => setUserDisabled(db, args, out, false) },
  credit: {
    usage: `(--email E | --org ID) --usd AMOUNT [--note TEXT]`,
    run: (db, args, out) => ledgerChange(db, args, out, "credit"),
  },
  debit: {
    usage: `(--email E | --org ID) --usd AMOUNT --note TEXT
                                           (--email: the user's personal organisation; --org: any, e.g. a team's)`,
    run: (db, args, out) => ledgerChange(db, args, out, "debit"),
  },
  "org list": {
    usage: `[--email E]                     (organisations: id, kind, balance, members; a user's with --email)`,
    async run(db, args, out) {
      const { values } = parse(args, { email: { type: "string" } });
      const of = values.email !== undefined ? await userByEmail(db, email(values)) : null;
      const rows = await db
        .select({ id: accounts.id, name: accounts.name, personal: accounts.personal, balance: accounts.balanceMicroUsd, members: sql<number>`(select count(*)::int from memberships m where m.account_id = ${accounts.id})` })
        .from(accounts)
        .where(of ? sql`exists (select 1 from memberships m where m.account_id = ${accounts.id} and m.user_id = ${of.id})` : undefined)
        .orderBy(accounts.name);
      for (const a of rows) out.push(`${a.id}\t${a.personal ? "personal" : "team"}\t${formatUsd(Number(a.balance))} USD\t${a.members} member${a.members === 1 ? "" : "s"}\t${a.name}`);
      if (!rows.length) out.push("no organisations");
    },
  },
  "key create": {
    usage: `--email E [--name N] [--models m1,m2] [--limit-usd X] [--rpm N] [--tpm N] [--concurrency N] [--cache on|all] [--expires ISO-8601]`,
    async run(db, args, out) {
      const { values } = parse(args, {
        email: { type: "string" },
        name: { type: "string" },
        models: { type: "string" },
        "limit-usd": { type: "string" },
        rpm: { type: "string" },
        tpm: { type: "string" },
        concurrency: { type: "string" },
        cache: { type: "string" },
        expires: { type: "string" },
      });
      const u = await userByEmail(db, email(values));
      const allowed =
        typeof values.models === "string" ? values.models.split(",").map((m) => m.trim()).filter(Boolean) : null;
      if (allowed?.length) {
        const known = new Set(
          (await db.selectDistinct({ id: models.modelId }).from(models).where(eq(models.enabled, true))).map((r) => r.id),
        );
        const unknown = allowed.filter((m) => !known.has(m));
        if (unknown.length) throw new CommandError(`unknown model ${unknown.join(", ")}; known: ${[...known].sort().join(", ")}`);
      }
      const limit = values["limit-usd"] !== undefined ? usd(values, "limit-usd") : null;
      let rpm: number | null = null;
      if (values.rpm !== undefined) {
        rpm = Number(values.rpm);
        if (!Number.isInteger(rpm) || rpm < 1) throw new CommandError(`--rpm must be a positive whole number, got "${values.rpm}"`);
      }
      let expiresAt: Date | null = null;
      if (values.expires !== undefined) {
        expiresAt = new Date(String(values.expires));
        if (Number.isNaN(expiresAt.getTime())) throw new CommandError(`--expires must be an ISO-8601 date, got "${values.expires}"`);
        if (expiresAt.getTime() <= Date.now()) throw new CommandError("--expires must be in the future");
      }
      const name = typeof values.name === "string" ? values.name : "";
      const tpm = values.tpm !== undefined ? positive(values, "tpm") : null;
      const maxConcurrent = values.concurrency !== undefined ? positive(values, "concurrency") : null;
      if (values.cache !== undefined && values.cache !== "on" && values.cache !== "all") throw new CommandError(`--cache is "on" (deterministic requests) or "all" (temperature > 0 too), got "${values.cache}"`);
      const responseCache = (values.cache as "on" | "all" | undefined) ?? null;
      const k = await createKey(db, { accountId: u.accountId, name, allowedModels: allowed, limitMicroUsd: limit, rpm, tpm, maxConcurrent, responseCache, expiresAt });
      await audit(db, "key.create", "key", k.id, { name, via: "cli" });
      await announceNewKey(k);
      out.push(`created key ${k.id}${name ? ` "${name}"` : ""} for ${u.email}; it is shown once:`);
      out.push(k.key);
    },
  },
  "account limits": {
    usage: `--email E [--rpm N|off] [--tpm N|off] [--concurrency N|off]
                                           (the user's organisation, across all its keys; no flag = show)`,
    async run(db, args, out) {
      const { values } = parse(args, { email: { type: "string" }, rpm: { type: "string" }, tpm: { type: "string" }, concurrency: { type: "string" } });
      const u = await userByEmail(db, email(values));
      const set: Partial<Record<"rpm" | "tpm" | "maxConcurrent", number | null>> = {};
      const orOff = (name: string) => (values[name] === "off" ? null : positive(values, name));
      if (values.rpm !== undefined) set.rpm = orOff("rpm");
      if (values.tpm !== undefined) set.tpm = orOff("tpm");
      if (values.concurrency !== undefined) set.maxConcurrent = orOff("concurrency");
      if (Object.keys(set).length) {
        await db.update(accounts).set(set).where(eq(accounts.id, u.accountId));
        await audit(db, "account.limits", "account", u.accountId, set);
        await notifyInvalidation({ kind: "accounts", ids: [u.accountId] });
      }
      const [a] = await db.select({ rpm: accounts.rpm, tpm: accounts.tpm, c: accounts.maxConcurrent }).from(accounts).where(eq(accounts.id, u.accountId));
      const show = (v: number | null | undefined) => (v == null ? "off" : String(v));
      out.push(`limits of ${u.email}'s organisation: rpm ${show(a?.rpm)}, tpm ${show(a?.tpm)}, concurrency ${show(a?.c)}`);
    },
  },
  "invite create": {
    usage: `[--email E] [--days N]     (SIGNUP=invite: prints a one-use sign-up link)`,
    async run(db, args, out) {
      const { values } = parse(args, { email: { type: "string" }, days: { type: "string" } });
      const bound = values.email !== undefined ? email(values) : null;
      const days = values.days === undefined ? 7 : Number(values.days);
      if (!Number.isInteger(days) || days < 1 || days > MAX_INVITE_DAYS) throw new CommandError(`--days must be a whole number from 1 to ${MAX_INVITE_DAYS}`);
      const inv = createInvite({ email: bound, days });
      await audit(db, "invite.create", "invite", inv.nonce, { email: bound, expiresAt: inv.expiresAt });
      out.push(`invite${bound ? ` for ${bound}` : ""}, valid until ${inv.expiresAt}, one sign-up:`);
      out.push(inv.url);
    },
  },
  "code create": {
    usage: `--usd AMOUNT [--count N] [--max-uses M] [--per-organisation] [--expires ISO-8601] [--note TEXT]
                                           (redeem codes: prints the batch as CSV; a person redeems
                                           each code once, or once per organisation with --per-organisation)`,
    async run(db, args, out) {
      const { values } = parse(args, { usd: { type: "string" }, count: { type: "string" }, "max-uses": { type: "string" }, "per-organisation": { type: "boolean" }, expires: { type: "string" }, note: { type: "string" } });
      const whole = (name: string, dflt: number) => {
        const v = values[name] === undefined ? dflt : Number(values[name]);
        if (!Number.isInteger(v) || v < 1) throw new CommandError(`--${name} must be a whole number from 1, got "${values[name]}"`);
        return v;
      };
      let expiresAt: Date | null = null;
      if (values.expires !== undefined) {
        expiresAt = new Date(String(values.expires));
        if (Number.isNaN(expiresAt.getTime())) throw new CommandError(`--expires must be an ISO-8601 date, got "${values.expires}"`);
      }
      const input = { amountMicroUsd: usd(values, "usd"), count: whole("count", 1), maxRedemptions: whole("max-uses", 1), oncePerUser: !values["per-organisation"], expiresAt, note: typeof values.note === "string" ? values.note : null };
      const problem = batchProblem(input);
      if (problem) throw new CommandError(problem.message);
      const { batch } = await createBatch(db, { ...input, actor: { userId: null, label: "cli" } });
      out.push(...(await batchCsv(db, batch.id))!.trimEnd().split("\r\n"));
    },
  },
  "code export": {
    usage: `--batch ID                   (the batch's codes and their uses as CSV)`,
    async run(db, args, out) {
      const { values } = parse(args, { batch: { type: "string" } });
      const csv = await batchCsv(db, required(values, "batch"));
      if (csv === null) throw new CommandError(`no batch ${values.batch}`);
      out.push(...csv.trimEnd().split("\r\n"));
    },
  },
  "key revoke": {
    usage: `KEY_OR_ID`,
    async run(db, args, out) {
      const { positionals } = parse(args, {}, 1);
      const target = positionals[0];
      if (!target) throw new UsageError("key revoke needs a key or key id");
      const id = await revokeKey(db, target);
      if (!id) throw new CommandError("no active key matches");
      await audit(db, "key.revoke", "key", id, { via: "cli" });
      out.push(`revoked ${id}`);
    },
  },
  "key list": {
    usage: `--email E`,
    async run(db, args, out) {
      const { values } = parse(args, { email: { type: "string" } });
      const u = await userByEmail(db, email(values));
      const rows = await db.select().from(apiKeys).where(and(eq(apiKeys.accountId, u.accountId), eq(apiKeys.playground, false)));
      for (const k of rows) {
        const state = k.revokedAt ? "revoked" : k.expiresAt && k.expiresAt < new Date() ? "expired" : "active";
        out.push(`${k.id}\t${k.prefix}…${k.last4}\t${state}\t${k.name}`);
      }
      if (!rows.length) out.push("no keys");
    },
  },
  balance: {
    usage: `(--email E | --org ID)`,
    async run(db, args, out) {
      const { values } = parse(args, { email: { type: "string" }, org: { type: "string" } });
      const u = await targetAccount(db, values);
      const [a] = await db.execute<{ balance: string | number }>(
        sql`select balance_micro_usd as balance from accounts where id = ${u.accountId}`,
      ).then((r) => (r as unknown as { rows: { balance: string | number }[] }).rows);
      out.push(formatUsd(Number(a?.balance ?? 0)));
    },
  },  "scim token create": identity("scim token create", "--org ID_OR_NAME     (a SCIM bearer token for the organisation; the token is the last line)"),
  "sso domain add": identity("sso domain add", "--org ID_OR_NAME --domain D   (a verified email domain: people at D sign in through the organisation's IdP)"),
  "sso domain remove": identity("sso domain remove", "--domain D"),
  "sso domain list": identity("sso domain list", "[--org ID_OR_NAME]"),

};

export const USAGE = `Usage: npm run admin -- <command>\n${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name} ${c.usage}`)
  .join("\n")}`;

export async function runAdminCommand(db: DB, argv: string[]): Promise<CommandResult> {
  const out: string[] = [];
  try {
    const [first, second, third] = argv;
    if (!first || first === "help" || first === "--help") return { exitCode: first ? 0 : 2, stdout: first ? [USAGE] : [], stderr: first ? [] : [USAGE] };
    const two = `${first} ${second ?? ""}`.trim();
    const name = [`${two} ${third ?? ""}`.trim(), two, first].find((n) => Object.hasOwn(COMMANDS, n));
    if (!name) throw new UsageError(`unknown command "${two}"`);
    await COMMANDS[name]!.run(db, argv.slice(name.split(" ").length), out);
    return { exitCode: 0, stdout: out, stderr: [] };
  } catch (err) {
    if (err instanceof UsageError) return { exitCode: 2, stdout: out, stderr: [`error: ${err.message} (npm run admin -- help lists the commands)`] };
    if (err instanceof CommandError) return { exitCode: 1, stdout: out, stderr: [`error: ${err.message}`] };
    throw err;
  }
}
