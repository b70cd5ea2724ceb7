CREATE TABLE "custom_field_definitions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"module" text NOT NULL,
	"key" text NOT NULL,
	"label" text NOT NULL,
	"type" text NOT NULL,
	"options" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"required" boolean DEFAULT false NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "custom_field_definitions_module_check" CHECK ("custom_field_definitions"."module" in ('risks', 'controls', 'policies', 'thirdParties', 'incidents', 'projects')),
	CONSTRAINT "custom_field_definitions_type_check" CHECK ("custom_field_definitions"."type" in ('text', 'number', 'date', 'singleSelect', 'multiSelect', 'boolean')),
	CONSTRAINT "custom_field_definitions_key_check" CHECK ("custom_field_definitions"."key" ~ '^[a-z][a-zA-Z0-9_]{0,39}$')
);
--> statement-breakpoint
CREATE TABLE "custom_field_values" (
	"definition_id" uuid NOT NULL,
	"module" text NOT NULL,
	"record_id" uuid NOT NULL,
	"value" jsonb NOT NULL,
	CONSTRAINT "custom_field_values_definition_id_record_id_pk" PRIMARY KEY("definition_id","record_id")
);
--> statement-breakpoint
ALTER TABLE "custom_field_values" ADD CONSTRAINT "custom_field_values_definition_id_custom_field_definitions_id_fk" FOREIGN KEY ("definition_id") REFERENCES "public"."custom_field_definitions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "custom_field_definitions_module_key_unique" ON "custom_field_definitions" USING btree ("module","key");--> statement-breakpoint
CREATE INDEX "custom_field_definitions_module_idx" ON "custom_field_definitions" USING btree ("module","position");--> statement-breakpoint
CREATE INDEX "custom_field_values_record_idx" ON "custom_field_values" USING btree ("module","record_id");