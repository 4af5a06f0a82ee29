CREATE TABLE "memberships" (
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"role" text NOT NULL,
	"monthly_cap_micro_usd" bigint,
	"cap_month" text,
	"month_spent_micro_usd" bigint DEFAULT 0 NOT NULL,
	"held_micro_usd" bigint DEFAULT 0 NOT NULL,
	"invited_by_user_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memberships_account_id_user_id_pk" PRIMARY KEY("account_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "org_invites" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"monthly_cap_micro_usd" bigint,
	"invited_by_user_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"accepted_at" timestamp with time zone,
	"accepted_by_user_id" text,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "personal" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "time_zone" text DEFAULT 'UTC' NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "billing_name" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "billing_email" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "billing_address" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "billing_tax_id" text;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_invites" ADD CONSTRAINT "org_invites_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "memberships_user_idx" ON "memberships" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "org_invites_account_idx" ON "org_invites" USING btree ("account_id","created_at");--> statement-breakpoint
-- Every existing account is its user's personal organisation, owned by that user.
UPDATE "accounts" SET "personal" = true WHERE "id" IN (SELECT "account_id" FROM "users");--> statement-breakpoint
INSERT INTO "memberships" ("account_id", "user_id", "role") SELECT "account_id", "id", 'owner' FROM "users" ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- A key belongs to the member who created it; keys made before (CLI) belong to the account's user.
UPDATE "api_keys" k SET "created_by_user_id" = u."id" FROM "users" u WHERE u."account_id" = k."account_id" AND k."created_by_user_id" IS NULL;--> statement-breakpoint
UPDATE "memberships" m SET "held_micro_usd" = s."held" FROM (SELECT "account_id", "created_by_user_id", sum("held_micro_usd") AS "held" FROM "api_keys" GROUP BY 1, 2) s WHERE s."account_id" = m."account_id" AND s."created_by_user_id" = m."user_id";
