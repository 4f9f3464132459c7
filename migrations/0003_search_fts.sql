-- Passages of the search environment, ranked with bm25(). Rowid = search_corpora.id * 2^32 + passage index.
CREATE VIRTUAL TABLE `search_passages` USING fts5(title, body, tokenize = 'unicode61 remove_diacritics 2');
