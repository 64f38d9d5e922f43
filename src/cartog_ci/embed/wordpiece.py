"""A search question's token ids without loading the `tokenizers` library.

A `search` process asks one question. Loading the model's tokenizer
(`tokenizers` imported, `tokenizer.json` parsed: 466 KB, 30,522 tokens)
took ~45 CPU ms of a warm search, holding the GIL, on the path to the
question's vector (docs/search.md, "Warm search latency"). BERT's
WordPiece over plain ASCII text is a few lines: this one reads the
vocabulary from a file written once per tokenizer file (named by its
sha256, like the converted model) and gives the ids `tokenizers` gives,
or None when it cannot be sure to (a character outside ASCII, a special
token written out); the caller then asks `tokenizers` itself
(embed/onnx.py, ``OnnxEmbeddingModel.embed_query``). A tokenizer of
another kind is remembered as such and never read this way.
tests/embed/test_wordpiece.py checks the ids against `tokenizers`.
"""

from __future__ import annotations

import hashlib
import json
import string
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# What `tokenizers` does to ASCII text under BertNormalizer (clean_text,
# lowercase) and BertPreTokenizer: control characters other than tab and
# line breaks dropped, those three read as spaces, words split at spaces
# and around each punctuation character.
_DROPPED = [c for c in (*range(0x20), 0x7F) if chr(c) not in "\t\n\r"]
_CLEAN = str.maketrans({**dict.fromkeys(map(chr, _DROPPED)), "\t": " ", "\n": " ", "\r": " "})
_PUNCTUATION = str.maketrans({c: f" {c} " for c in string.punctuation})
# Of the vocabulary file, in its name: bump when its layout changes.
# 2: the tokens sorted, each with its id (1: in id order, read into a dict).
_FORMAT = 2


class Vocabulary:
    """Token -> id, by binary search over the vocabulary file's lines
    (``token id``, sorted by the token's bytes), as read: a question looks
    up a few dozen pieces, where reading 30,522 lines into a dict took
    ~9 CPU ms of a one-question process, holding the GIL after its
    session was made (docs/search.md, "Warm search latency")."""

    def __init__(self, lines: bytes) -> None:
        self._text = lines + b"\n" if lines and not lines.endswith(b"\n") else lines
        self._size = self._text.count(b"\n")

    def __len__(self) -> int:
        return self._size

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocabulary) and other._text == self._text

    __hash__ = None  # type: ignore[assignment]

    def get(self, token: str) -> int | None:
        """The id of ``token`` (ASCII: what ``WordPiece.encode`` asks)."""
        key, text = token.encode(), self._text
        lo, hi = 0, len(text)  # both at the start of a line (or the end)
        while lo < hi:
            start = max(lo, text.rfind(b"\n", lo, (lo + hi) // 2) + 1)
            end = text.index(b"\n", start)
            found, _, number = text[start:end].rpartition(b" ")
            if found == key:
                return int(number)
            if found < key:
                lo = end + 1
            else:
                hi = start
        return None


def vocabulary_lines(tokens: list[str]) -> str:
    """The vocabulary file's body for ``tokens`` in id order."""
    order = sorted(range(len(tokens)), key=lambda i: tokens[i].encode())
    return "\n".join(f"{tokens[i]} {i}" for i in order)


@dataclass(frozen=True)
class WordPiece:
    vocab: Vocabulary
    unk: int
    cls: int
    sep: int
    specials: tuple[str, ...]  # added tokens (lower case): a text with one is not ours
    max_word: int  # characters; a longer word is one unknown token

    def encode(self, text: str, max_tokens: int) -> list[int] | None:
        """``[CLS] pieces… [SEP]``, at most ``max_tokens`` ids (the pieces
        cut at the end, as `tokenizers` truncates); None if not sure."""
        if not text.isascii() or max_tokens < 3:
            return None
        text = text.translate(_CLEAN).lower()
        if any(s in text for s in self.specials):
            return None
        ids: list[int] = []
        for word in text.translate(_PUNCTUATION).split():
            ids.extend(self._pieces(word))
        return [self.cls, *ids[: max_tokens - 2], self.sep]

    def _pieces(self, word: str) -> list[int]:
        """Longest piece first, then ``##``-pieces; a word with a part no
        piece matches is one unknown token."""
        if len(word) > self.max_word:
            return [self.unk]
        out, start = [], 0
        while start < len(word):
            for end in range(len(word), start, -1):
                found = self.vocab.get(word[start:end] if start == 0 else f"##{word[start:end]}")
                if found is not None:
                    out.append(found)
                    start = end
                    break
            else:
                return [self.unk]
        return out


def load(
    tokenizer_path: Path, sha256: str, cache_dir: Path, *, write: Callable[[Path, bytes], None]
) -> WordPiece | None:
    """The WordPiece of the tokenizer file whose sha256 is ``sha256`` (as
    verified by the caller), from its vocabulary file in ``cache_dir``,
    written on first use (by ``write``, atomically); None for a tokenizer
    of another kind or when the file can be neither read nor written."""
    path = cache_dir / f"wordpiece-{sha256[:16]}-{_FORMAT}.txt"
    try:
        header, _, body = path.read_bytes().partition(b"\n")
        meta = json.loads(header)
    except (OSError, ValueError):
        written = _write(tokenizer_path, sha256, path, write)
        if written is None:
            return None
        meta, body = written
    if not isinstance(meta, dict) or meta.get("format") != _FORMAT or meta.get("sha256") != sha256:
        return None
    if not meta.get("wordpiece"):
        return None
    vocab = Vocabulary(body)
    if len(vocab) != meta["size"]:
        return None
    return WordPiece(
        vocab,
        meta["unk"],
        meta["cls"],
        meta["sep"],
        tuple(meta["specials"]),
        meta["max_word"],
    )


def _write(
    tokenizer_path: Path, sha256: str, path: Path, write: Callable[[Path, bytes], None]
) -> tuple[dict[str, Any], bytes] | None:
    try:
        raw = tokenizer_path.read_bytes()
        if hashlib.sha256(raw).hexdigest() != sha256:
            return None  # replaced since it was verified: not written under its name
        meta, tokens = describe(json.loads(raw))
        body = vocabulary_lines(tokens).encode()
        meta = {"format": _FORMAT, "sha256": sha256, **meta}
        path.parent.mkdir(parents=True, exist_ok=True)
        write(path, json.dumps(meta).encode() + b"\n" + body)
    except (OSError, ValueError):
        return None
    return meta, body


def describe(config: Any) -> tuple[dict[str, Any], list[str]]:
    """What ``WordPiece`` needs of a parsed `tokenizer.json`, and its
    tokens in id order; ``{"wordpiece": False}`` when the file's tokenizer
    is not one ``WordPiece`` reproduces: a lower-casing BertNormalizer that
    cleans text, BertPreTokenizer, a WordPiece model with ``##`` pieces and
    ids 0..n-1, ``[CLS] A [SEP]`` added after."""
    no: tuple[dict[str, Any], list[str]] = ({"wordpiece": False}, [])
    if not isinstance(config, dict):
        return no
    model, normalizer = config.get("model") or {}, config.get("normalizer") or {}
    vocab = model.get("vocab")
    if (
        normalizer.get("type") != "BertNormalizer"
        or normalizer.get("clean_text") is not True
        or normalizer.get("lowercase") is not True
        or (config.get("pre_tokenizer") or {}).get("type") != "BertPreTokenizer"
        or model.get("type") != "WordPiece"
        or model.get("continuing_subword_prefix") != "##"
        or not isinstance(vocab, dict)
        or sorted(vocab.values()) != list(range(len(vocab)))
        or any(t != t.strip() or not t or "\n" in t or " " in t for t in vocab)
    ):
        return no
    cls, sep = _cls_sep(config.get("post_processor") or {})
    unk = vocab.get(model.get("unk_token"))
    if cls is None or sep is None or unk is None:
        return no
    tokens = sorted(vocab, key=vocab.__getitem__)
    specials = sorted({str(t.get("content", "")).lower() for t in config.get("added_tokens") or []} - {""})
    meta = {
        "wordpiece": True,
        "size": len(tokens),
        "unk": unk,
        "cls": cls,
        "sep": sep,
        "specials": specials,
        "max_word": int(model.get("max_input_chars_per_word", 100)),
    }
    return meta, tokens


def _cls_sep(post: dict[str, Any]) -> tuple[int | None, int | None]:
    """The ids a single sequence is wrapped in, for `[CLS] A [SEP]` only."""
    if post.get("type") == "BertProcessing":
        return post["cls"][1], post["sep"][1]
    if post.get("type") != "TemplateProcessing":
        return None, None
    single = post.get("single") or []
    names = [next(iter(piece)) for piece in single]
    if names != ["SpecialToken", "Sequence", "SpecialToken"]:
        return None, None
    first, last = single[0]["SpecialToken"]["id"], single[2]["SpecialToken"]["id"]
    specials = post.get("special_tokens") or {}
    ids = [specials.get(name, {}).get("ids") for name in (first, last)]
    if any(not isinstance(i, list) or len(i) != 1 for i in ids):
        return None, None
    return ids[0][0], ids[1][0]
