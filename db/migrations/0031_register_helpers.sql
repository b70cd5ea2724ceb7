-- Two helpers a register's migration calls, so the SQL of a counted or searchable table is written once, here
-- (docs/adding-a-module.md): `SELECT grc_count_rows('<table>');` and
-- `SELECT grc_make_searchable('<table>', '<title column>', '<text column or NULL>');`. They do what migrations 0018
-- and 0026 did by hand for the first registers.

-- Exact list totals from delta counts (docs/decisions.md): the statement-level triggers of 0018 on one table, then
-- its rows counted once. CREATE TRIGGER blocks writers until the calling migration commits, so no row is counted
-- twice or missed. Calling it again for a table that has its triggers changes nothing.
CREATE OR REPLACE FUNCTION grc_count_rows(counted text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = counted || '_count_inserts' AND tgrelid = counted::regclass) THEN
    RETURN;
  END IF;
  EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS inserted_rows
    FOR EACH STATEMENT EXECUTE FUNCTION row_counts_after_insert()', counted || '_count_inserts', counted);
  EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS deleted_rows
    FOR EACH STATEMENT EXECUTE FUNCTION row_counts_after_delete()', counted || '_count_deletes', counted);
  EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I
    FOR EACH STATEMENT EXECUTE FUNCTION row_counts_after_truncate()', counted || '_count_truncate', counted);
  EXECUTE format('INSERT INTO row_counts (table_name, delta) SELECT %L, count(*) FROM %I HAVING count(*) > 0', counted, counted);
END;
$$;
--> statement-breakpoint
-- Search (src/platform/search/search.ts): the stored tsvector of title (weight A) and text (weight B) with its GIN
-- index, and the title's trigram index for codes and short names, as 0026 made them for the first registers. The
-- record type's `search` declaration reads `<table>.search_vector` and searches its title column.
CREATE OR REPLACE FUNCTION grc_make_searchable(searched text, title_column text, body_column text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER TABLE %I ADD COLUMN IF NOT EXISTS search_vector tsvector GENERATED ALWAYS AS (grc_search_vector(%I, %s)) STORED',
    searched, title_column, CASE WHEN body_column IS NULL THEN quote_literal('') ELSE quote_ident(body_column) END);
  EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I USING gin (search_vector)', searched || '_search_idx', searched);
  EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I USING gin (%I gin_trgm_ops)', searched || '_title_trgm_idx', searched, title_column);
END;
$$;
