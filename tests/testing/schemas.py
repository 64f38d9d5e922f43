"""Older schemas of the SQLite file, made from a current index, for the
tests that migrate them (store/migrations.py)."""

from __future__ import annotations

from cartog_ci.store.migrations import HASH_AS_TEXT

# m010's chunks (m006's table), the same rowids as the full-text rows
CHUNKS_10 = f"""
    CREATE TABLE chunks_10 (
        symbol_id TEXT PRIMARY KEY, file TEXT NOT NULL, text_hash TEXT NOT NULL, content TEXT NOT NULL,
        embed_chars INTEGER, embed_text TEXT
    );
    INSERT INTO chunks_10 (rowid, symbol_id, file, text_hash, content, embed_chars, embed_text)
        SELECT c.key, i.text, f.text, {HASH_AS_TEXT.format(h="c.text_hash")}, c.content, c.embed_chars, c.embed_text
        FROM chunk_rows c JOIN interned i ON i.key = c.key JOIN interned f ON f.key = c.file_key ORDER BY c.key;
    DROP VIEW chunks;
    DROP TABLE chunk_rows;
    ALTER TABLE chunks_10 RENAME TO chunks;
    CREATE INDEX chunks_file ON chunks(file);
    CREATE INDEX chunks_text_hash ON chunks(text_hash);
    DELETE FROM _migrations WHERE name = 'm011_interned_chunks';
    UPDATE meta SET value = '10' WHERE key = 'schema_version';
"""
