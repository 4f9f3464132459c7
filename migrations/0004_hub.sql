CREATE TABLE `hub_envs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`owner` text NOT NULL,
	`name` text NOT NULL,
	`visibility` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`tags` text DEFAULT '' NOT NULL,
	`readme` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`owner`) REFERENCES `hub_teams`(`name`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `hub_envs_owner_name` ON `hub_envs` (`owner`,`name`);--> statement-breakpoint
CREATE INDEX `hub_envs_visibility` ON `hub_envs` (`visibility`);--> statement-breakpoint
CREATE TABLE `hub_episodes` (
	`episode_id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`task_index` integer NOT NULL,
	`return` real NOT NULL,
	`final_reward` real NOT NULL,
	`steps` integer NOT NULL,
	`receipt` text NOT NULL,
	`trajectory` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `hub_eval_runs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `hub_episodes_run` ON `hub_episodes` (`run_id`);--> statement-breakpoint
CREATE TABLE `hub_eval_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`team` text NOT NULL,
	`env_id` integer NOT NULL,
	`version` text NOT NULL,
	`content_hash` text NOT NULL,
	`split` text NOT NULL,
	`tasks` text NOT NULL,
	`model_name` text NOT NULL,
	`model` text NOT NULL,
	`public` integer NOT NULL,
	`status` text NOT NULL,
	`aggregate` text,
	`created_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`team`) REFERENCES `hub_teams`(`name`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`env_id`) REFERENCES `hub_envs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `hub_eval_runs_env` ON `hub_eval_runs` (`env_id`,`version`,`split`,`status`);--> statement-breakpoint
CREATE TABLE `hub_eval_tasks` (
	`run_id` text NOT NULL,
	`task_index` integer NOT NULL,
	`episode_id` text NOT NULL,
	`start` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`run_id`, `task_index`),
	FOREIGN KEY (`run_id`) REFERENCES `hub_eval_runs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `hub_eval_tasks_episode` ON `hub_eval_tasks` (`episode_id`);--> statement-breakpoint
CREATE TABLE `hub_shares` (
	`env_id` integer NOT NULL,
	`team` text NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`env_id`, `team`),
	FOREIGN KEY (`env_id`) REFERENCES `hub_envs`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`team`) REFERENCES `hub_teams`(`name`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `hub_shares_team` ON `hub_shares` (`team`);--> statement-breakpoint
CREATE TABLE `hub_teams` (
	`name` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `hub_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`team` text NOT NULL,
	`hash` text NOT NULL,
	`scopes` text NOT NULL,
	`expires_at` integer,
	`revoked_at` integer,
	`last_used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`team`) REFERENCES `hub_teams`(`name`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `hub_tokens_hash` ON `hub_tokens` (`hash`);--> statement-breakpoint
CREATE INDEX `hub_tokens_team` ON `hub_tokens` (`team`);--> statement-breakpoint
CREATE TABLE `hub_versions` (
	`env_id` integer NOT NULL,
	`version` text NOT NULL,
	`prerelease` integer NOT NULL,
	`endpoint` text,
	`builtin` text,
	`manifest` text NOT NULL,
	`public_key` text NOT NULL,
	`content_hash` text NOT NULL,
	`yanked_at` integer,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`env_id`, `version`),
	FOREIGN KEY (`env_id`) REFERENCES `hub_envs`(`id`) ON UPDATE no action ON DELETE no action
);
