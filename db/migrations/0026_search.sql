-- Search (src/platform/search.ts): full-text search with weights (title A, text B) through GIN expression indexes, and
-- trigram matching on titles for codes and short names ("AC-2", "ISO"). The expressions here and the queries must match
-- exactly for the indexes to be used: both go through grc_search_vector.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION grc_search_vector(title text, body text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A') || setweight(to_tsvector('english'::regconfig, coalesce(body, '')), 'B') $$;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS risks_search_idx ON risks USING gin (grc_search_vector(title, description));
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS risks_title_trgm_idx ON risks USING gin (title gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS controls_search_idx ON controls USING gin (grc_search_vector(name, description));
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS controls_title_trgm_idx ON controls USING gin (name gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS policies_search_idx ON policies USING gin (grc_search_vector(title, description));
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS policies_title_trgm_idx ON policies USING gin (title gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS third_parties_search_idx ON third_parties USING gin (grc_search_vector(name, description));
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS third_parties_title_trgm_idx ON third_parties USING gin (name gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS assets_search_idx ON assets USING gin (grc_search_vector(name, description));
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS assets_title_trgm_idx ON assets USING gin (name gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS audit_plans_search_idx ON audit_plans USING gin (grc_search_vector(title, ''));
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS audit_plans_title_trgm_idx ON audit_plans USING gin (title gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS audit_findings_search_idx ON audit_findings USING gin (grc_search_vector(title, description));
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS audit_findings_title_trgm_idx ON audit_findings USING gin (title gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS incidents_search_idx ON incidents USING gin (grc_search_vector(title, description));
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS incidents_title_trgm_idx ON incidents USING gin (title gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS projects_search_idx ON projects USING gin (grc_search_vector(title, description));
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS projects_title_trgm_idx ON projects USING gin (title gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS business_units_search_idx ON business_units USING gin (grc_search_vector(name, description));
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS business_units_title_trgm_idx ON business_units USING gin (name gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS evidence_search_idx ON evidence USING gin (grc_search_vector(title, description));
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS evidence_title_trgm_idx ON evidence USING gin (title gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS compliance_items_search_idx ON compliance_items USING gin (grc_search_vector(code || ' ' || name, description));
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS compliance_items_title_trgm_idx ON compliance_items USING gin ((code || ' ' || name) gin_trgm_ops);
