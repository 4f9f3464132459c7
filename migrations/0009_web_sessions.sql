CREATE TABLE `hub_web_sessions` (
	`hash` text PRIMARY KEY NOT NULL,
	`token_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`token_id`) REFERENCES `hub_tokens`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `hub_web_sessions_expires` ON `hub_web_sessions` (`expires_at`);