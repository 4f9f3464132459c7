-- WebShop products, ranked with bm25(). Rowid = webshop_catalogs.id * 2^32 + product index; `doc` is the product JSON.
-- Porter stemming, as WebShop's Pyserini index (Lucene's English analyzer) stems.
CREATE VIRTUAL TABLE `webshop_products` USING fts5(body, doc UNINDEXED, tokenize = 'porter unicode61 remove_diacritics 2');
