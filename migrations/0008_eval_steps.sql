CREATE TABLE `hub_eval_steps` (
	`episode_id` text NOT NULL,
	`step` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`episode_id`, `step`)
);
