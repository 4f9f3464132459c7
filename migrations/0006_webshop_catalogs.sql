CREATE TABLE `webshop_catalogs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`hash` text NOT NULL,
	`products` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webshop_catalogs_name_unique` ON `webshop_catalogs` (`name`);