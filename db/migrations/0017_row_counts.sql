CREATE TABLE "row_counts" (
	"table_name" text NOT NULL,
	"delta" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "row_counts_table_idx" ON "row_counts" USING btree ("table_name");