-- Search (src/platform/search.ts): each searched table keeps a stored tsvector (title weight A, text weight B) with a
-- GIN index, so matching and ranking read it instead of parsing the text again; titles get a trigram index for codes
-- and short names ("AC-2", "ISO"). The Drizzle schema leaves search_vector out, so no record view ever carries it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION grc_search_vector(title text, body text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A') || setweight(to_tsvector('english'::regconfig, coalesce(body, '')), 'B') $$;
--> statement-breakpoint
ALTER TABLE risks ADD COLUMN IF NOT EXISTS search_vector tsvector GENERATED ALWAYS AS (grc_search_vector(title, description)) STORED;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS risks_search_idx ON risks USING gin (search_vector);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS risks_title_trgm_idx ON risks USING gin (title gin_trgm_ops);
--> statement-breakpoint
ALTER TABLE controls ADD COLUMN IF NOT EXISTS search_vector tsvector GENERATED ALWAYS AS (grc_search_vector(name, description)) STORED;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS controls_search_idx ON controls USING gin (search_vector);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS controls_title_trgm_idx ON controls USING gin (name gin_trgm_ops);
--> statement-breakpoint
ALTER TABLE policies ADD COLUMN IF NOT EXISTS search_vector tsvector GENERATED ALWAYS AS (grc_search_vector(title, description)) STORED;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS policies_search_idx ON policies USING gin (search_vector);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS policies_title_trgm_idx ON policies USING gin (title gin_trgm_ops);
--> statement-breakpoint
ALTER TABLE third_parties ADD COLUMN IF NOT EXISTS search_vector tsvector GENERATED ALWAYS AS (grc_search_vector(name, description)) STORED;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS third_parties_search_idx ON third_parties USING gin (search_vector);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS third_parties_title_trgm_idx ON third_parties USING gin (name gin_trgm_ops);
--> statement-breakpoint
ALTER TABLE assets ADD COLUMN IF NOT EXISTS search_vector tsvector GENERATED ALWAYS AS (grc_search_vector(name, description)) STORED;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS assets_search_idx ON assets USING gin (search_vector);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS assets_title_trgm_idx ON assets USING gin (name gin_trgm_ops);
--> statement-breakpoint
ALTER TABLE audit_plans ADD COLUMN IF NOT EXISTS search_vector tsvector GENERATED ALWAYS AS (grc_search_vector(title, '')) STORED;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS audit_plans_search_idx ON audit_plans USING gin (search_vector);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS audit_plans_title_trgm_idx ON audit_plans USING gin (title gin_trgm_ops);
--> statement-breakpoint
ALTER TABLE audit_findings ADD COLUMN IF NOT EXISTS search_vector tsvector GENERATED ALWAYS AS (grc_search_vector(title, description)) STORED;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS audit_findings_search_idx ON audit_findings USING gin (search_vector);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS audit_findings_title_trgm_idx ON audit_findings USING gin (title gin_trgm_ops);
--> statement-breakpoint
ALTER TABLE incidents ADD COLUMN IF NOT EXISTS search_vector tsvector GENERATED ALWAYS AS (grc_search_vector(title, description)) STORED;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS incidents_search_idx ON incidents USING gin (search_vector);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS incidents_title_trgm_idx ON incidents USING gin (title gin_trgm_ops);
--> statement-breakpoint
ALTER TABLE projects ADD COLUMN IF NOT EXISTS search_vector tsvector GENERATED ALWAYS AS (grc_search_vector(title, description)) STORED;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS projects_search_idx ON projects USING gin (search_vector);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS projects_title_trgm_idx ON projects USING gin (title gin_trgm_ops);
--> statement-breakpoint
ALTER TABLE business_units ADD COLUMN IF NOT EXISTS search_vector tsvector GENERATED ALWAYS AS (grc_search_vector(name, description)) STORED;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS business_units_search_idx ON business_units USING gin (search_vector);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS business_units_title_trgm_idx ON business_units USING gin (name gin_trgm_ops);
--> statement-breakpoint
ALTER TABLE evidence ADD COLUMN IF NOT EXISTS search_vector tsvector GENERATED ALWAYS AS (grc_search_vector(title, description)) STORED;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS evidence_search_idx ON evidence USING gin (search_vector);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS evidence_title_trgm_idx ON evidence USING gin (title gin_trgm_ops);
--> statement-breakpoint
ALTER TABLE compliance_items ADD COLUMN IF NOT EXISTS search_vector tsvector GENERATED ALWAYS AS (grc_search_vector(code || ' ' || name, description)) STORED;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS compliance_items_search_idx ON compliance_items USING gin (search_vector);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS compliance_items_title_trgm_idx ON compliance_items USING gin ((code || ' ' || name) gin_trgm_ops);
