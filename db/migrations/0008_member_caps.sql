-- Per-member monthly caps (decision 0018). A key's spend and holds count against the membership of
-- the member who created it, in the same statement that changes the key: every money path that
-- updates api_keys (holds, leases, batched settlement, video charges, refunds) keeps the
-- membership's month spend and held amounts with it. A HOLD (held grows) that would pass the cap
-- raises GC001, which rolls the whole statement back, so concurrent requests cannot overshoot:
-- the membership row is locked by the UPDATE, after the account and the key (lock-order.ts).
-- Settlements only move held to spent and are never refused; a charge without a hold (video)
-- is checked by moveMoney against the row this trigger has just locked.
CREATE OR REPLACE FUNCTION "gw_member_spend"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  dh bigint := NEW.held_micro_usd - OLD.held_micro_usd;
  ds bigint := NEW.spent_micro_usd - OLD.spent_micro_usd;
  cur text;
  cap bigint;
  spent bigint;
  held bigint;
BEGIN
  IF NEW.created_by_user_id IS NULL OR (dh = 0 AND ds = 0) THEN
    RETURN NEW;
  END IF;
  SELECT to_char(now() AT TIME ZONE a.time_zone, 'YYYY-MM') INTO cur FROM accounts a WHERE a.id = NEW.account_id;
  UPDATE memberships m SET
      held_micro_usd = greatest(0, m.held_micro_usd + dh),
      month_spent_micro_usd = greatest(0, CASE WHEN m.cap_month = cur THEN m.month_spent_micro_usd ELSE 0 END + ds),
      cap_month = cur
    WHERE m.account_id = NEW.account_id AND m.user_id = NEW.created_by_user_id
    RETURNING m.monthly_cap_micro_usd, m.month_spent_micro_usd, m.held_micro_usd INTO cap, spent, held;
  IF FOUND AND dh > 0 AND cap IS NOT NULL AND spent + held > cap THEN
    RAISE EXCEPTION 'member_cap_exceeded:%', cap USING ERRCODE = 'GC001';
  END IF;
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER "api_keys_member_spend" AFTER UPDATE OF "held_micro_usd", "spent_micro_usd" ON "api_keys" FOR EACH ROW EXECUTE FUNCTION "gw_member_spend"();
