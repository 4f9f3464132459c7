CREATE TABLE `dataset_tasks` (
	`dataset` text NOT NULL,
	`split` text NOT NULL,
	`idx` integer NOT NULL,
	`payload` text NOT NULL,
	PRIMARY KEY(`dataset`, `split`, `idx`)
);
--> statement-breakpoint
CREATE TABLE `datasets` (
	`name` text PRIMARY KEY NOT NULL,
	`hash` text NOT NULL,
	`imported_at` integer NOT NULL
);
