-- Issue 41, identity (decisions 0061, 0062): per-organisation single sign-on (OIDC and SAML),
-- the email domains that map people to an organisation, SCIM provisioning tokens and the
-- resources SCIM manages, and the SAML assertions already used (replay protection).
CREATE TABLE "org_identity" (
	"account_id" text PRIMARY KEY NOT NULL REFERENCES "accounts"("id"),
	"default_role" text DEFAULT 'member' NOT NULL,
	"sso_required" boolean DEFAULT false NOT NULL,
	"oidc_issuer" text,
	"oidc_client_id" text,
	"oidc_client_secret_encrypted" text,
	"saml_entry_point" text,
	"saml_idp_issuer" text,
	"saml_idp_cert" text,
	"group_roles" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE TABLE "sso_domains" (
	"domain" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"added_by_user_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX "sso_domains_account_idx" ON "sso_domains" USING btree ("account_id");--> statement-breakpoint
CREATE TABLE "scim_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"hash" text NOT NULL,
	"prefix" text NOT NULL,
	"created_by_user_id" text,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE UNIQUE INDEX "scim_tokens_hash_idx" ON "scim_tokens" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "scim_tokens_account_idx" ON "scim_tokens" USING btree ("account_id");--> statement-breakpoint
CREATE TABLE "scim_users" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"user_id" text NOT NULL REFERENCES "users"("id") ON DELETE cascade,
	"user_name" text NOT NULL,
	"external_id" text,
	"given_name" text,
	"family_name" text,
	"display_name" text,
	"active" boolean DEFAULT true NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE UNIQUE INDEX "scim_users_account_user_idx" ON "scim_users" USING btree ("account_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "scim_users_account_name_idx" ON "scim_users" USING btree ("account_id","user_name");--> statement-breakpoint
CREATE TABLE "scim_groups" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"display_name" text NOT NULL,
	"external_id" text,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE UNIQUE INDEX "scim_groups_account_name_idx" ON "scim_groups" USING btree ("account_id","display_name");--> statement-breakpoint
CREATE TABLE "scim_group_members" (
	"group_id" text NOT NULL REFERENCES "scim_groups"("id") ON DELETE cascade,
	"scim_user_id" text NOT NULL REFERENCES "scim_users"("id") ON DELETE cascade,
	CONSTRAINT "scim_group_members_pk" PRIMARY KEY("group_id","scim_user_id")
);--> statement-breakpoint
CREATE INDEX "scim_group_members_user_idx" ON "scim_group_members" USING btree ("scim_user_id");--> statement-breakpoint
CREATE TABLE "saml_replays" (
	"assertion_id" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
