-- Exact row counts of the register tables without a scan (see docs/decisions.md, "Exact totals from delta counts").
-- Each writing statement appends one signed delta row; nobody updates a shared counter row, so concurrent writers
-- never queue on one row lock and cannot deadlock with the Audit Log's advisory lock.
CREATE OR REPLACE FUNCTION row_counts_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  added bigint;
BEGIN
  SELECT count(*) INTO added FROM inserted_rows;
  IF added > 0 THEN
    INSERT INTO row_counts (table_name, delta) VALUES (TG_TABLE_NAME, added);
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION row_counts_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  removed bigint;
BEGIN
  SELECT count(*) INTO removed FROM deleted_rows;
  IF removed > 0 THEN
    INSERT INTO row_counts (table_name, delta) VALUES (TG_TABLE_NAME, -removed);
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
-- TRUNCATE empties the table, so its deltas no longer describe anything: nothing left means a count of zero.
CREATE OR REPLACE FUNCTION row_counts_after_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM row_counts WHERE table_name = TG_TABLE_NAME;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
-- The register tables with a REST list (src/platform/row-counts.ts COUNTED_TABLES must name the same ones). The
-- triggers are created before the seed count: CREATE TRIGGER holds a lock that blocks writers until this migration
-- commits, so no row is counted twice or missed.
DO $$
DECLARE
  counted text;
BEGIN
  FOREACH counted IN ARRAY ARRAY[
    'risks', 'controls', 'incidents', 'assets', 'business_units', 'third_parties', 'projects', 'policies',
    'audit_plans', 'audit_findings', 'compliance_packages', 'account_review_programs'
  ] LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS inserted_rows
      FOR EACH STATEMENT EXECUTE FUNCTION row_counts_after_insert()', counted || '_count_inserts', counted);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS deleted_rows
      FOR EACH STATEMENT EXECUTE FUNCTION row_counts_after_delete()', counted || '_count_deletes', counted);
    EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I
      FOR EACH STATEMENT EXECUTE FUNCTION row_counts_after_truncate()', counted || '_count_truncate', counted);
    EXECUTE format('INSERT INTO row_counts (table_name, delta) SELECT %L, count(*) FROM %I HAVING count(*) > 0', counted, counted);
  END LOOP;
END;
$$;
