-- Full-text search over hub envs (name, description, tags), kept in sync with hub_envs by triggers.
CREATE VIRTUAL TABLE `hub_envs_fts` USING fts5(name, description, tags, content = 'hub_envs', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE TRIGGER `hub_envs_fts_insert` AFTER INSERT ON `hub_envs` BEGIN
  INSERT INTO hub_envs_fts(rowid, name, description, tags) VALUES (new.id, new.name, new.description, new.tags);
END;
--> statement-breakpoint
CREATE TRIGGER `hub_envs_fts_delete` AFTER DELETE ON `hub_envs` BEGIN
  INSERT INTO hub_envs_fts(hub_envs_fts, rowid, name, description, tags) VALUES ('delete', old.id, old.name, old.description, old.tags);
END;
--> statement-breakpoint
CREATE TRIGGER `hub_envs_fts_update` AFTER UPDATE ON `hub_envs` BEGIN
  INSERT INTO hub_envs_fts(hub_envs_fts, rowid, name, description, tags) VALUES ('delete', old.id, old.name, old.description, old.tags);
  INSERT INTO hub_envs_fts(rowid, name, description, tags) VALUES (new.id, new.name, new.description, new.tags);
END;
