-- Open risks per band at past dates (docs/dashboard.md, "Posture at a past date"): reading every risk's History and
-- carrying each field forward took seconds at 100,000 risks. History is the truth; these two tables are derived from it
-- by the trigger below, whichever door writes History (services, imports, loaders), and rebuilt per risk from that
-- risk's whole History, so entries written with a chosen past time (the demo loader) land where they belong.
-- risk_open_spans: each stretch of time a risk was open, with its four ratings then; [from_at, to_at), to_at null while
-- History shows no later change. Read for a reader at level own (joined to the risks they own today).
CREATE TABLE "risk_open_spans" (
	"risk_id" text NOT NULL,
	"from_at" timestamp with time zone NOT NULL,
	"to_at" timestamp with time zone,
	"inherent_likelihood" integer,
	"inherent_impact" integer,
	"residual_likelihood" integer,
	"residual_impact" integer
);
--> statement-breakpoint
CREATE INDEX "risk_open_spans_risk_idx" ON "risk_open_spans" USING btree ("risk_id");
--> statement-breakpoint
-- risk_open_day_deltas: the spans summed per UTC day and ratings (+1 where a span starts, -1 where it ends; a rating
-- not set is 0), so the open risks per band at the end of a day are the sums of the days up to it: a read of
-- (days x ratings) rows, not of every risk. Read for a reader at level all.
CREATE TABLE "risk_open_day_deltas" (
	"day" date NOT NULL,
	"inherent_likelihood" integer NOT NULL,
	"inherent_impact" integer NOT NULL,
	"residual_likelihood" integer NOT NULL,
	"residual_impact" integer NOT NULL,
	"delta" integer NOT NULL,
	CONSTRAINT "risk_open_day_deltas_pk" PRIMARY KEY("day","inherent_likelihood","inherent_impact","residual_likelihood","residual_impact")
);
--> statement-breakpoint
-- A rating as History wrote it: a number, or nothing. Anything else reads as no rating, so an unexpected entry can never
-- make the write that adds it fail in the trigger below.
CREATE OR REPLACE FUNCTION grc_history_level(v jsonb) RETURNS integer LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'number' THEN (v #>> '{}')::numeric::integer END
$$;
--> statement-breakpoint
-- The spans of every risk whose History the statement added to (`added`, its new rows), made again from that risk's
-- whole History by the same method as before (a field's value is the `after` of the last entry so far that set it; ties
-- of one time ordered by id), and the day deltas moved by the difference between the spans removed and those made.
CREATE OR REPLACE FUNCTION grc_risk_open_spans_rebuild() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM added WHERE record_type = 'risk') THEN
    RETURN NULL;
  END IF;
  WITH ids AS (
    SELECT DISTINCT record_id FROM added
    WHERE record_type = 'risk' AND changes ?| '{status,inherentLikelihood,inherentImpact,residualLikelihood,residualImpact}'::text[]
  ),
  gone AS (
    DELETE FROM risk_open_spans s WHERE s.risk_id IN (SELECT record_id FROM ids)
    RETURNING s.from_at, s.to_at, s.inherent_likelihood AS il, s.inherent_impact AS ii, s.residual_likelihood AS rl, s.residual_impact AS ri
  ),
  ev AS (
    SELECT h.record_id, h.at, h.id,
      h.changes ? 'status' AS hs, h.changes -> 'status' ->> 'after' AS s,
      h.changes ? 'inherentLikelihood' AS hil, grc_history_level(h.changes -> 'inherentLikelihood' -> 'after') AS il,
      h.changes ? 'inherentImpact' AS hii, grc_history_level(h.changes -> 'inherentImpact' -> 'after') AS ii,
      h.changes ? 'residualLikelihood' AS hrl, grc_history_level(h.changes -> 'residualLikelihood' -> 'after') AS rl,
      h.changes ? 'residualImpact' AS hri, grc_history_level(h.changes -> 'residualImpact' -> 'after') AS ri
    FROM history h
    WHERE h.record_type = 'risk' AND h.record_id IN (SELECT record_id FROM ids)
      AND h.changes ?| '{status,inherentLikelihood,inherentImpact,residualLikelihood,residualImpact}'::text[]
  ),
  st AS (
    SELECT record_id, at, lead(at) OVER w AS next_at,
      (array_agg(s) FILTER (WHERE hs) OVER w)[count(*) FILTER (WHERE hs) OVER w] AS s,
      (array_agg(il) FILTER (WHERE hil) OVER w)[count(*) FILTER (WHERE hil) OVER w] AS il,
      (array_agg(ii) FILTER (WHERE hii) OVER w)[count(*) FILTER (WHERE hii) OVER w] AS ii,
      (array_agg(rl) FILTER (WHERE hrl) OVER w)[count(*) FILTER (WHERE hrl) OVER w] AS rl,
      (array_agg(ri) FILTER (WHERE hri) OVER w)[count(*) FILTER (WHERE hri) OVER w] AS ri
    FROM ev WINDOW w AS (PARTITION BY record_id ORDER BY at, id)
  ),
  made AS (
    INSERT INTO risk_open_spans (risk_id, from_at, to_at, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact)
    SELECT record_id, at, next_at, il, ii, rl, ri FROM st WHERE s = 'open'
    RETURNING from_at, to_at, inherent_likelihood AS il, inherent_impact AS ii, residual_likelihood AS rl, residual_impact AS ri
  ),
  moved AS (
    SELECT (x.at AT TIME ZONE 'UTC')::date AS day, coalesce(il, 0) AS il, coalesce(ii, 0) AS ii, coalesce(rl, 0) AS rl, coalesce(ri, 0) AS ri, sum(x.d)::int AS delta
    FROM (SELECT *, -1 AS sign FROM gone UNION ALL SELECT *, 1 FROM made) sp
    CROSS JOIN LATERAL (VALUES (sp.from_at, sp.sign), (sp.to_at, -sp.sign)) x(at, d)
    WHERE x.at IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5
  )
  INSERT INTO risk_open_day_deltas AS t (day, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact, delta)
  SELECT day, il, ii, rl, ri, delta FROM moved WHERE delta <> 0 ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (day, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact) DO UPDATE SET delta = t.delta + excluded.delta;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER history_risk_open_spans AFTER INSERT ON history REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION grc_risk_open_spans_rebuild();
--> statement-breakpoint
-- What History holds already, once, by the same method.
INSERT INTO risk_open_spans (risk_id, from_at, to_at, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact)
SELECT record_id, at, next_at, il, ii, rl, ri FROM (
  SELECT record_id, at, lead(at) OVER w AS next_at,
    (array_agg(s) FILTER (WHERE hs) OVER w)[count(*) FILTER (WHERE hs) OVER w] AS s,
    (array_agg(il) FILTER (WHERE hil) OVER w)[count(*) FILTER (WHERE hil) OVER w] AS il,
    (array_agg(ii) FILTER (WHERE hii) OVER w)[count(*) FILTER (WHERE hii) OVER w] AS ii,
    (array_agg(rl) FILTER (WHERE hrl) OVER w)[count(*) FILTER (WHERE hrl) OVER w] AS rl,
    (array_agg(ri) FILTER (WHERE hri) OVER w)[count(*) FILTER (WHERE hri) OVER w] AS ri
  FROM (
    SELECT h.record_id, h.at, h.id,
      h.changes ? 'status' AS hs, h.changes -> 'status' ->> 'after' AS s,
      h.changes ? 'inherentLikelihood' AS hil, grc_history_level(h.changes -> 'inherentLikelihood' -> 'after') AS il,
      h.changes ? 'inherentImpact' AS hii, grc_history_level(h.changes -> 'inherentImpact' -> 'after') AS ii,
      h.changes ? 'residualLikelihood' AS hrl, grc_history_level(h.changes -> 'residualLikelihood' -> 'after') AS rl,
      h.changes ? 'residualImpact' AS hri, grc_history_level(h.changes -> 'residualImpact' -> 'after') AS ri
    FROM history h
    WHERE h.record_type = 'risk' AND h.changes ?| '{status,inherentLikelihood,inherentImpact,residualLikelihood,residualImpact}'::text[]
  ) ev WINDOW w AS (PARTITION BY record_id ORDER BY at, id)
) st WHERE s = 'open';
--> statement-breakpoint
INSERT INTO risk_open_day_deltas (day, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact, delta)
SELECT day, il, ii, rl, ri, delta FROM (
  SELECT (x.at AT TIME ZONE 'UTC')::date AS day, coalesce(s.inherent_likelihood, 0) AS il, coalesce(s.inherent_impact, 0) AS ii,
    coalesce(s.residual_likelihood, 0) AS rl, coalesce(s.residual_impact, 0) AS ri, sum(x.d)::int AS delta
  FROM risk_open_spans s CROSS JOIN LATERAL (VALUES (s.from_at, 1), (s.to_at, -1)) x(at, d)
  WHERE x.at IS NOT NULL
  GROUP BY 1, 2, 3, 4, 5
) d WHERE delta <> 0;
--> statement-breakpoint
-- The Dashboard's counts of today (docs/dashboard.md, Cost): open risks per owner, owner group and ratings (the heat map
-- and the bands), open risks' next reviews and scheduled controls' next tests per owner, owner group and day (what is
-- overdue and due in the next 30 days). Kept by the statement triggers below from every change to risks and controls
-- (the stored due dates of migration 0043 change by an UPDATE of the row, so they are seen too), so a Dashboard reads
-- dozens of rows, filtered by the viewer's own/all level on the owner columns, instead of counting 100,000 records.
-- A count may reach 0 and stay: the rows are bounded by the owners, groups and ratings (or days) in use.
CREATE TABLE "risk_open_cells" (
	"owner_id" uuid,
	"owner_group_id" uuid,
	"inherent_likelihood" integer NOT NULL,
	"inherent_impact" integer NOT NULL,
	"residual_likelihood" integer,
	"residual_impact" integer,
	"n" integer NOT NULL,
	CONSTRAINT "risk_open_cells_key" UNIQUE NULLS NOT DISTINCT("owner_id","owner_group_id","inherent_likelihood","inherent_impact","residual_likelihood","residual_impact")
);
--> statement-breakpoint
CREATE TABLE "risk_review_due_days" (
	"owner_id" uuid,
	"owner_group_id" uuid,
	"due_on" date NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "risk_review_due_days_key" UNIQUE NULLS NOT DISTINCT("owner_id","owner_group_id","due_on")
);
--> statement-breakpoint
-- due_on null: a scheduled control never tested, due today.
CREATE TABLE "control_test_due_days" (
	"owner_id" uuid,
	"owner_group_id" uuid,
	"due_on" date,
	"n" integer NOT NULL,
	CONSTRAINT "control_test_due_days_key" UNIQUE NULLS NOT DISTINCT("owner_id","owner_group_id","due_on")
);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION grc_risk_open_cells() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Each trigger names only the transition tables of its event; a branch is planned when first run, so the others are never read.
  IF TG_OP = 'INSERT' THEN
    INSERT INTO risk_open_cells AS t (owner_id, owner_group_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact, n)
    SELECT owner_id, owner_group_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact, sum(d)::int FROM (
      SELECT owner_id AS owner_id, owner_group_id AS owner_group_id, inherent_likelihood AS inherent_likelihood, inherent_impact AS inherent_impact, residual_likelihood AS residual_likelihood, residual_impact AS residual_impact, 1 AS d FROM made WHERE status = 'open'
    ) c GROUP BY owner_id, owner_group_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact HAVING sum(d) <> 0 ORDER BY owner_id, owner_group_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact
    ON CONFLICT (owner_id, owner_group_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact) DO UPDATE SET n = t.n + excluded.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO risk_open_cells AS t (owner_id, owner_group_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact, n)
    SELECT owner_id, owner_group_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact, sum(d)::int FROM (
      SELECT owner_id AS owner_id, owner_group_id AS owner_group_id, inherent_likelihood AS inherent_likelihood, inherent_impact AS inherent_impact, residual_likelihood AS residual_likelihood, residual_impact AS residual_impact, -1 AS d FROM gone WHERE status = 'open'
    ) c GROUP BY owner_id, owner_group_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact HAVING sum(d) <> 0 ORDER BY owner_id, owner_group_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact
    ON CONFLICT (owner_id, owner_group_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact) DO UPDATE SET n = t.n + excluded.n;
  ELSE
    INSERT INTO risk_open_cells AS t (owner_id, owner_group_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact, n)
    SELECT owner_id, owner_group_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact, sum(d)::int FROM (
      SELECT owner_id AS owner_id, owner_group_id AS owner_group_id, inherent_likelihood AS inherent_likelihood, inherent_impact AS inherent_impact, residual_likelihood AS residual_likelihood, residual_impact AS residual_impact, -1 AS d FROM gone WHERE status = 'open'
      UNION ALL SELECT owner_id AS owner_id, owner_group_id AS owner_group_id, inherent_likelihood AS inherent_likelihood, inherent_impact AS inherent_impact, residual_likelihood AS residual_likelihood, residual_impact AS residual_impact, 1 AS d FROM made WHERE status = 'open'
    ) c GROUP BY owner_id, owner_group_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact HAVING sum(d) <> 0 ORDER BY owner_id, owner_group_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact
    ON CONFLICT (owner_id, owner_group_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact) DO UPDATE SET n = t.n + excluded.n;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION grc_risk_review_due_days() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Each trigger names only the transition tables of its event; a branch is planned when first run, so the others are never read.
  IF TG_OP = 'INSERT' THEN
    INSERT INTO risk_review_due_days AS t (owner_id, owner_group_id, due_on, n)
    SELECT owner_id, owner_group_id, due_on, sum(d)::int FROM (
      SELECT owner_id AS owner_id, owner_group_id AS owner_group_id, next_review_due AS due_on, 1 AS d FROM made WHERE status = 'open' AND next_review_due IS NOT NULL
    ) c GROUP BY owner_id, owner_group_id, due_on HAVING sum(d) <> 0 ORDER BY owner_id, owner_group_id, due_on
    ON CONFLICT (owner_id, owner_group_id, due_on) DO UPDATE SET n = t.n + excluded.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO risk_review_due_days AS t (owner_id, owner_group_id, due_on, n)
    SELECT owner_id, owner_group_id, due_on, sum(d)::int FROM (
      SELECT owner_id AS owner_id, owner_group_id AS owner_group_id, next_review_due AS due_on, -1 AS d FROM gone WHERE status = 'open' AND next_review_due IS NOT NULL
    ) c GROUP BY owner_id, owner_group_id, due_on HAVING sum(d) <> 0 ORDER BY owner_id, owner_group_id, due_on
    ON CONFLICT (owner_id, owner_group_id, due_on) DO UPDATE SET n = t.n + excluded.n;
  ELSE
    INSERT INTO risk_review_due_days AS t (owner_id, owner_group_id, due_on, n)
    SELECT owner_id, owner_group_id, due_on, sum(d)::int FROM (
      SELECT owner_id AS owner_id, owner_group_id AS owner_group_id, next_review_due AS due_on, -1 AS d FROM gone WHERE status = 'open' AND next_review_due IS NOT NULL
      UNION ALL SELECT owner_id AS owner_id, owner_group_id AS owner_group_id, next_review_due AS due_on, 1 AS d FROM made WHERE status = 'open' AND next_review_due IS NOT NULL
    ) c GROUP BY owner_id, owner_group_id, due_on HAVING sum(d) <> 0 ORDER BY owner_id, owner_group_id, due_on
    ON CONFLICT (owner_id, owner_group_id, due_on) DO UPDATE SET n = t.n + excluded.n;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION grc_control_test_due_days() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Each trigger names only the transition tables of its event; a branch is planned when first run, so the others are never read.
  IF TG_OP = 'INSERT' THEN
    INSERT INTO control_test_due_days AS t (owner_id, owner_group_id, due_on, n)
    SELECT owner_id, owner_group_id, due_on, sum(d)::int FROM (
      SELECT owner_id AS owner_id, owner_group_id AS owner_group_id, next_test_due AS due_on, 1 AS d FROM made WHERE status <> 'retired' AND test_frequency_months IS NOT NULL
    ) c GROUP BY owner_id, owner_group_id, due_on HAVING sum(d) <> 0 ORDER BY owner_id, owner_group_id, due_on
    ON CONFLICT (owner_id, owner_group_id, due_on) DO UPDATE SET n = t.n + excluded.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO control_test_due_days AS t (owner_id, owner_group_id, due_on, n)
    SELECT owner_id, owner_group_id, due_on, sum(d)::int FROM (
      SELECT owner_id AS owner_id, owner_group_id AS owner_group_id, next_test_due AS due_on, -1 AS d FROM gone WHERE status <> 'retired' AND test_frequency_months IS NOT NULL
    ) c GROUP BY owner_id, owner_group_id, due_on HAVING sum(d) <> 0 ORDER BY owner_id, owner_group_id, due_on
    ON CONFLICT (owner_id, owner_group_id, due_on) DO UPDATE SET n = t.n + excluded.n;
  ELSE
    INSERT INTO control_test_due_days AS t (owner_id, owner_group_id, due_on, n)
    SELECT owner_id, owner_group_id, due_on, sum(d)::int FROM (
      SELECT owner_id AS owner_id, owner_group_id AS owner_group_id, next_test_due AS due_on, -1 AS d FROM gone WHERE status <> 'retired' AND test_frequency_months IS NOT NULL
      UNION ALL SELECT owner_id AS owner_id, owner_group_id AS owner_group_id, next_test_due AS due_on, 1 AS d FROM made WHERE status <> 'retired' AND test_frequency_months IS NOT NULL
    ) c GROUP BY owner_id, owner_group_id, due_on HAVING sum(d) <> 0 ORDER BY owner_id, owner_group_id, due_on
    ON CONFLICT (owner_id, owner_group_id, due_on) DO UPDATE SET n = t.n + excluded.n;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER risks_open_cells_insert AFTER INSERT ON risks REFERENCING NEW TABLE AS made FOR EACH STATEMENT EXECUTE FUNCTION grc_risk_open_cells();
--> statement-breakpoint
CREATE TRIGGER risks_open_cells_update AFTER UPDATE ON risks REFERENCING OLD TABLE AS gone NEW TABLE AS made FOR EACH STATEMENT EXECUTE FUNCTION grc_risk_open_cells();
--> statement-breakpoint
CREATE TRIGGER risks_open_cells_delete AFTER DELETE ON risks REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION grc_risk_open_cells();
--> statement-breakpoint
CREATE TRIGGER risks_review_due_days_insert AFTER INSERT ON risks REFERENCING NEW TABLE AS made FOR EACH STATEMENT EXECUTE FUNCTION grc_risk_review_due_days();
--> statement-breakpoint
CREATE TRIGGER risks_review_due_days_update AFTER UPDATE ON risks REFERENCING OLD TABLE AS gone NEW TABLE AS made FOR EACH STATEMENT EXECUTE FUNCTION grc_risk_review_due_days();
--> statement-breakpoint
CREATE TRIGGER risks_review_due_days_delete AFTER DELETE ON risks REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION grc_risk_review_due_days();
--> statement-breakpoint
CREATE TRIGGER controls_test_due_days_insert AFTER INSERT ON controls REFERENCING NEW TABLE AS made FOR EACH STATEMENT EXECUTE FUNCTION grc_control_test_due_days();
--> statement-breakpoint
CREATE TRIGGER controls_test_due_days_update AFTER UPDATE ON controls REFERENCING OLD TABLE AS gone NEW TABLE AS made FOR EACH STATEMENT EXECUTE FUNCTION grc_control_test_due_days();
--> statement-breakpoint
CREATE TRIGGER controls_test_due_days_delete AFTER DELETE ON controls REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION grc_control_test_due_days();
--> statement-breakpoint
-- What the tables hold already, once.
INSERT INTO risk_open_cells (owner_id, owner_group_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact, n)
SELECT owner_id, owner_group_id, inherent_likelihood, inherent_impact, residual_likelihood, residual_impact, count(*)::int
FROM risks WHERE status = 'open' GROUP BY 1, 2, 3, 4, 5, 6;
--> statement-breakpoint
INSERT INTO risk_review_due_days (owner_id, owner_group_id, due_on, n)
SELECT owner_id, owner_group_id, next_review_due, count(*)::int
FROM risks WHERE status = 'open' AND next_review_due IS NOT NULL GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO control_test_due_days (owner_id, owner_group_id, due_on, n)
SELECT owner_id, owner_group_id, next_test_due, count(*)::int
FROM controls WHERE status <> 'retired' AND test_frequency_months IS NOT NULL GROUP BY 1, 2, 3;
--> statement-breakpoint
-- The Dashboard names the first five control tests due: this index gives the scheduled controls in (date, name) order,
-- so those five are read and the rest never sorted (src/modules/controls/dashboard.ts, `first`).
CREATE INDEX "controls_test_due_name_idx" ON "controls" USING btree ("next_test_due","name") WHERE "status" <> 'retired' AND "test_frequency_months" IS NOT NULL;
