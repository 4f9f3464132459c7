CREATE TABLE `hub_hosted_secrets` (
	`env_id` integer NOT NULL,
	`version` text NOT NULL,
	`sealed` text NOT NULL,
	PRIMARY KEY(`env_id`, `version`),
	FOREIGN KEY (`env_id`) REFERENCES `hub_envs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `hub_versions` ADD `bundle_hash` text;--> statement-breakpoint
ALTER TABLE `hub_versions` ADD `hosted` text;