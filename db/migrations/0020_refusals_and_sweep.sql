CREATE TABLE "client_refusals" (
	"client" text NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"window_end" timestamp with time zone NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "client_refusals_client_window_start_pk" PRIMARY KEY("client","window_start")
);
--> statement-breakpoint
CREATE TABLE "refusal_windows" (
	"fingerprint" text NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"window_end" timestamp with time zone NOT NULL,
	"count" integer NOT NULL,
	"first_seq" bigint,
	"event" jsonb NOT NULL,
	CONSTRAINT "refusal_windows_fingerprint_window_start_pk" PRIMARY KEY("fingerprint","window_start")
);
--> statement-breakpoint
CREATE TABLE "sweep_runs" (
	"name" text PRIMARY KEY NOT NULL,
	"last_run_at" timestamp with time zone NOT NULL,
	"runs" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "client_refusals_window_end_idx" ON "client_refusals" USING btree ("window_end");--> statement-breakpoint
CREATE INDEX "refusal_windows_window_end_idx" ON "refusal_windows" USING btree ("window_end");--> statement-breakpoint
CREATE INDEX "login_attempts_ip_at_idx" ON "login_attempts" USING btree ("ip","at");