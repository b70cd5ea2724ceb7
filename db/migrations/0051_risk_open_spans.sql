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
-- The spans of the risks named in `changed` (a table of record ids) again from their whole History: the same method as
-- before (a field's value is the `after` of the last entry so far that set it; ties of one time ordered by id), and the
-- day deltas moved by the difference between the spans removed and those made.
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
      h.changes ? 'inherentLikelihood' AS hil, (h.changes -> 'inherentLikelihood' ->> 'after')::int AS il,
      h.changes ? 'inherentImpact' AS hii, (h.changes -> 'inherentImpact' ->> 'after')::int AS ii,
      h.changes ? 'residualLikelihood' AS hrl, (h.changes -> 'residualLikelihood' ->> 'after')::int AS rl,
      h.changes ? 'residualImpact' AS hri, (h.changes -> 'residualImpact' ->> 'after')::int AS ri
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
      h.changes ? 'inherentLikelihood' AS hil, (h.changes -> 'inherentLikelihood' ->> 'after')::int AS il,
      h.changes ? 'inherentImpact' AS hii, (h.changes -> 'inherentImpact' ->> 'after')::int AS ii,
      h.changes ? 'residualLikelihood' AS hrl, (h.changes -> 'residualLikelihood' ->> 'after')::int AS rl,
      h.changes ? 'residualImpact' AS hri, (h.changes -> 'residualImpact' ->> 'after')::int AS ri
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
