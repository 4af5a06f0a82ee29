-- Budgets (decision 0032): per organisation, member or key, a spend limit over a window (day,
-- week, month in the organisation's time zone) with an optional soft limit that only alerts.
-- Kept by the api_keys trigger that keeps members' monthly caps (0008), generalised here: every
-- money path that changes a key's held or spent amounts changes the budgets that cover the key
-- in the same statement, under the account's row lock (lock order: accounts → api_keys →
-- memberships → budgets). A HOLD that would take a budget past its hard limit raises GC002 and
-- rolls the statement back, so concurrent requests cannot overshoot. Crossing the soft limit,
-- 80 % and 100 % of the hard limit inserts one alert per window (the dedupe key names both).
CREATE TABLE "budgets" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"scope" text NOT NULL,
	"user_id" text,
	"key_id" text,
	"period" text NOT NULL,
	"limit_micro_usd" bigint,
	"soft_limit_micro_usd" bigint,
	"window" text DEFAULT '' NOT NULL,
	"spent_micro_usd" bigint DEFAULT 0 NOT NULL,
	"held_micro_usd" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "budgets_scope_target" CHECK ((scope = 'organisation' AND user_id IS NULL AND key_id IS NULL) OR (scope = 'member' AND user_id IS NOT NULL AND key_id IS NULL) OR (scope = 'key' AND key_id IS NOT NULL AND user_id IS NULL)),
	CONSTRAINT "budgets_period" CHECK (period IN ('day', 'week', 'month')),
	CONSTRAINT "budgets_some_limit" CHECK (limit_micro_usd IS NOT NULL OR soft_limit_micro_usd IS NOT NULL)
);
--> statement-breakpoint
ALTER TABLE "budgets" ADD CONSTRAINT "budgets_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "budgets" ADD CONSTRAINT "budgets_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "budgets" ADD CONSTRAINT "budgets_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "budgets_target_idx" ON "budgets" USING btree ("account_id","scope",coalesce("user_id", ''),coalesce("key_id", ''),"period");--> statement-breakpoint
-- The playground's own key per member (lib/playground/principal.ts): its spend counts against the
-- member's cap and every budget through this same trigger. Never shown, rolled or usable as a
-- bearer (its hash is of no secret).
ALTER TABLE "api_keys" ADD COLUMN "playground" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_playground_idx" ON "api_keys" USING btree ("account_id","created_by_user_id") WHERE playground AND revoked_at IS NULL;--> statement-breakpoint
-- Set by the application when the organisation has a budget: keys of organisations without one
-- pay nothing for the feature (the trigger reads this with the time zone it already reads).
ALTER TABLE "accounts" ADD COLUMN "has_budgets" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- One alert per budget, kind and window (budget.ts raises budget_100 with the same key when a
-- request is refused).
CREATE FUNCTION "gw_budget_alert"(kind text, b budgets, lim bigint) RETURNS void LANGUAGE sql AS $$
  INSERT INTO alerts (id, account_id, kind, dedupe_key, data)
  VALUES ('alrt_' || replace(gen_random_uuid()::text, '-', ''), b.account_id, kind, kind || ':' || b.id || ':' || b."window",
          jsonb_build_object('budget_id', b.id, 'scope', b.scope, 'period', b.period, 'window', b."window",
                             'spent_micro_usd', b.spent_micro_usd, 'limit_micro_usd', lim, 'user_id', b.user_id, 'key_id', b.key_id))
  ON CONFLICT (dedupe_key) DO NOTHING
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "gw_member_spend"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  dh bigint := NEW.held_micro_usd - OLD.held_micro_usd;
  ds bigint := NEW.spent_micro_usd - OLD.spent_micro_usd;
  tz text;
  budgeted boolean;
  here timestamp;
  cur text;
  cap bigint;
  spent bigint;
  held bigint;
  b budgets;
  before bigint;
BEGIN
  IF dh = 0 AND ds = 0 THEN
    RETURN NEW;
  END IF;
  SELECT a.time_zone, a.has_budgets INTO tz, budgeted FROM accounts a WHERE a.id = NEW.account_id;
  IF NEW.created_by_user_id IS NULL AND NOT budgeted THEN
    RETURN NEW;
  END IF;
  here := now() AT TIME ZONE tz;
  cur := to_char(here, 'YYYY-MM');
  IF NEW.created_by_user_id IS NOT NULL THEN
    UPDATE memberships m SET
        held_micro_usd = greatest(0, m.held_micro_usd + dh),
        month_spent_micro_usd = greatest(0, CASE WHEN m.cap_month = cur THEN m.month_spent_micro_usd ELSE 0 END + ds),
        cap_month = cur
      WHERE m.account_id = NEW.account_id AND m.user_id = NEW.created_by_user_id
      RETURNING m.monthly_cap_micro_usd, m.month_spent_micro_usd, m.held_micro_usd INTO cap, spent, held;
    IF FOUND AND dh > 0 AND cap IS NOT NULL AND spent + held > cap THEN
      RAISE EXCEPTION 'member_cap_exceeded:%', cap USING ERRCODE = 'GC001';
    END IF;
  END IF;
  IF NOT budgeted THEN
    RETURN NEW;
  END IF;
  -- In id order, so two statements never lock one organisation's budgets in different orders.
  FOR b IN
    WITH w AS (
      SELECT id, CASE period WHEN 'day' THEN to_char(here, 'YYYY-MM-DD') WHEN 'week' THEN to_char(here, 'IYYY-"W"IW') ELSE cur END AS now_window
        FROM budgets
       WHERE account_id = NEW.account_id
         AND (scope = 'organisation' OR (scope = 'member' AND user_id = NEW.created_by_user_id) OR (scope = 'key' AND key_id = NEW.id))
       ORDER BY id FOR UPDATE)
    UPDATE budgets x SET
        held_micro_usd = greatest(0, x.held_micro_usd + dh),
        spent_micro_usd = greatest(0, CASE WHEN x."window" = w.now_window THEN x.spent_micro_usd ELSE 0 END + ds),
        "window" = w.now_window
      FROM w WHERE x.id = w.id
      RETURNING x.*
  LOOP
    IF dh > 0 AND b.limit_micro_usd IS NOT NULL AND b.spent_micro_usd + b.held_micro_usd > b.limit_micro_usd THEN
      -- What was left before this hold, so the 402 can say the request did not fit.
      RAISE EXCEPTION 'budget_exceeded:%:%:%:%:%:%', b.id, b.scope, b.period, b.limit_micro_usd, b."window",
        greatest(0, b.limit_micro_usd - b.spent_micro_usd - b.held_micro_usd + dh) USING ERRCODE = 'GC002';
    END IF;
    IF ds > 0 THEN
      before := greatest(0, b.spent_micro_usd - ds);
      IF b.soft_limit_micro_usd IS NOT NULL AND before < b.soft_limit_micro_usd AND b.spent_micro_usd >= b.soft_limit_micro_usd THEN
        PERFORM gw_budget_alert('budget_soft', b, b.soft_limit_micro_usd);
      END IF;
      IF b.limit_micro_usd IS NOT NULL AND before * 5 < b.limit_micro_usd * 4 AND b.spent_micro_usd * 5 >= b.limit_micro_usd * 4 THEN
        PERFORM gw_budget_alert('budget_80', b, b.limit_micro_usd);
      END IF;
      IF b.limit_micro_usd IS NOT NULL AND before < b.limit_micro_usd AND b.spent_micro_usd >= b.limit_micro_usd THEN
        PERFORM gw_budget_alert('budget_100', b, b.limit_micro_usd);
      END IF;
    END IF;
  END LOOP;
  RETURN NEW;
END
$$;
