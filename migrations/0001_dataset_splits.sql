CREATE TABLE `dataset_splits` (
	`dataset` text NOT NULL,
	`split` text NOT NULL,
	`count` integer NOT NULL,
	`hash` text NOT NULL,
	PRIMARY KEY(`dataset`, `split`)
);
