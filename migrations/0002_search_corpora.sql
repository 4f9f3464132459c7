CREATE TABLE `search_corpora` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`hash` text NOT NULL,
	`passages` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `search_corpora_name_unique` ON `search_corpora` (`name`);