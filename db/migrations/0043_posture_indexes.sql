DROP INDEX "history_record_idx";--> statement-breakpoint
CREATE INDEX "history_type_at_idx" ON "history" USING btree ("record_type","at");--> statement-breakpoint
CREATE INDEX "history_record_idx" ON "history" USING btree ("record_type","record_id","at","id");--> statement-breakpoint
-- The Dashboard's "Overdue and due in the next 30 days" (docs/dashboard.md, Cost): the day each control's next test and
-- each open risk's next review fall due, stored and indexed so the Dashboard reads a range instead of computing the
-- date of every record. Kept by the triggers below whichever door writes (services, imports, loaders). These columns
-- are not in the Drizzle schema: the services never read or write them, so no History entry records them.
-- A control: its last test + its test frequency; null when never tested (due today) or not scheduled.
ALTER TABLE "controls" ADD COLUMN IF NOT EXISTS "next_test_due" date;
--> statement-breakpoint
-- A risk: its last review (else its creation day, UTC) + its review frequency.
ALTER TABLE "risks" ADD COLUMN IF NOT EXISTS "next_review_due" date;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION grc_control_next_test_due(control uuid, months integer) RETURNS date LANGUAGE sql STABLE AS $$
  SELECT (max(tested_on) + make_interval(months => months))::date FROM control_tests WHERE control_id = control
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION grc_risk_next_review_due(risk uuid, created timestamptz, months integer) RETURNS date LANGUAGE sql STABLE AS $$
  SELECT (coalesce(max(reviewed_on), (created AT TIME ZONE 'UTC')::date) + make_interval(months => months))::date FROM risk_reviews WHERE risk_id = risk
$$;
--> statement-breakpoint
-- A control's frequency changes: its date again. A new control has no test yet (null).
CREATE OR REPLACE FUNCTION controls_next_test_due() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.next_test_due := CASE WHEN TG_OP = 'INSERT' OR NEW.test_frequency_months IS NULL THEN NULL ELSE grc_control_next_test_due(NEW.id, NEW.test_frequency_months) END;
  RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER controls_next_test_due BEFORE INSERT OR UPDATE OF test_frequency_months ON controls FOR EACH ROW EXECUTE FUNCTION controls_next_test_due();
--> statement-breakpoint
-- Tests added, changed or removed: the dates of their controls again, once per statement.
CREATE OR REPLACE FUNCTION control_tests_next_due() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE controls c SET next_test_due = grc_control_next_test_due(c.id, c.test_frequency_months)
      WHERE c.id IN (SELECT control_id FROM changed_new) AND c.test_frequency_months IS NOT NULL;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE controls c SET next_test_due = grc_control_next_test_due(c.id, c.test_frequency_months)
      WHERE c.id IN (SELECT control_id FROM changed_old) AND c.test_frequency_months IS NOT NULL;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER control_tests_next_due_insert AFTER INSERT ON control_tests REFERENCING NEW TABLE AS changed_new FOR EACH STATEMENT EXECUTE FUNCTION control_tests_next_due();
--> statement-breakpoint
CREATE TRIGGER control_tests_next_due_update AFTER UPDATE ON control_tests REFERENCING NEW TABLE AS changed_new OLD TABLE AS changed_old FOR EACH STATEMENT EXECUTE FUNCTION control_tests_next_due();
--> statement-breakpoint
CREATE TRIGGER control_tests_next_due_delete AFTER DELETE ON control_tests REFERENCING OLD TABLE AS changed_old FOR EACH STATEMENT EXECUTE FUNCTION control_tests_next_due();
--> statement-breakpoint
-- A new risk: its creation day + its frequency; a changed frequency: its date again.
CREATE OR REPLACE FUNCTION risks_next_review_due() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.next_review_due := CASE WHEN TG_OP = 'INSERT'
    THEN ((NEW.created_at AT TIME ZONE 'UTC')::date + make_interval(months => NEW.review_frequency_months))::date
    ELSE grc_risk_next_review_due(NEW.id, NEW.created_at, NEW.review_frequency_months) END;
  RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER risks_next_review_due BEFORE INSERT OR UPDATE OF review_frequency_months, created_at ON risks FOR EACH ROW EXECUTE FUNCTION risks_next_review_due();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION risk_reviews_next_due() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE risks r SET next_review_due = grc_risk_next_review_due(r.id, r.created_at, r.review_frequency_months) WHERE r.id IN (SELECT risk_id FROM changed_new);
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE risks r SET next_review_due = grc_risk_next_review_due(r.id, r.created_at, r.review_frequency_months) WHERE r.id IN (SELECT risk_id FROM changed_old);
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER risk_reviews_next_due_insert AFTER INSERT ON risk_reviews REFERENCING NEW TABLE AS changed_new FOR EACH STATEMENT EXECUTE FUNCTION risk_reviews_next_due();
--> statement-breakpoint
CREATE TRIGGER risk_reviews_next_due_update AFTER UPDATE ON risk_reviews REFERENCING NEW TABLE AS changed_new OLD TABLE AS changed_old FOR EACH STATEMENT EXECUTE FUNCTION risk_reviews_next_due();
--> statement-breakpoint
CREATE TRIGGER risk_reviews_next_due_delete AFTER DELETE ON risk_reviews REFERENCING OLD TABLE AS changed_old FOR EACH STATEMENT EXECUTE FUNCTION risk_reviews_next_due();
--> statement-breakpoint
UPDATE controls c SET next_test_due = grc_control_next_test_due(c.id, c.test_frequency_months) WHERE c.test_frequency_months IS NOT NULL;
--> statement-breakpoint
UPDATE risks r SET next_review_due = grc_risk_next_review_due(r.id, r.created_at, r.review_frequency_months);
--> statement-breakpoint
CREATE INDEX "controls_next_test_due_idx" ON "controls" USING btree ("next_test_due");
--> statement-breakpoint
CREATE INDEX "risks_next_review_due_idx" ON "risks" USING btree ("next_review_due");
