"""A question's ids without the tokenizer (embed/wordpiece.py): the ids
`tokenizers` gives, or none at all."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer

from cartog_ci.embed import onnx as embed_onnx
from cartog_ci.embed import wordpiece
from cartog_ci.embed.base import query_vector
from cartog_ci.embed.onnx import OnnxEmbeddingModel, load_default_model, packaged_spec

REPO = Path(__file__).resolve().parents[2]
TRICKY = [
    "",
    "   ",
    "Shift the item at the given index to the destination index in the SplayList instance.",
    "don't re-try; e.g. `send_task(name, args=())` -> AsyncResult!",
    "tab\there, line\nbreak, return\rfeed",
    "control\x00chars\x01in\x0bthe\x0cmiddle\x1f and\x7fdelete",
    "unaffable unaffable## ##ing ####",
    "x" * 100,
    "x" * 101,
    "a" * 99 + "!" + "b" * 120,
    "word " * 300,  # cut at 128 ids
    "__init__ __repr__ os.path.join(a, b) {k: v} [1, 2] <html> @decorator #comment $var %d ^ | ~ \\ /",
]
FALLS_BACK = ["café au lait", "naïve", "日本語のテキスト", "emoji 🙂 here", "[CLS] token", "the [MASK] word", "[sep]"]


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("CARTOG_CI_HOME", str(tmp_path / "home"))


@pytest.fixture(scope="module")
def reference() -> Tokenizer:
    tokenizer = Tokenizer.from_file(str(packaged_spec().tokenizer_path))
    tokenizer.no_padding()
    tokenizer.enable_truncation(128)
    return tokenizer


@pytest.fixture
def pieces(tmp_path) -> wordpiece.WordPiece:
    spec = packaged_spec()
    assert spec.tokenizer_sha256
    loaded = wordpiece.load(spec.tokenizer_path, spec.tokenizer_sha256, tmp_path, write=embed_onnx._write_atomic)
    assert loaded is not None
    return loaded


def texts() -> list[str]:
    """Questions (the class set's descriptions), this repository's code in
    slices, and random ASCII with control characters, brackets and ##."""
    out = list(TRICKY)
    for line in (REPO / "benchmarks" / "search-class.jsonl").read_text().splitlines():
        out.extend(v for v in json.loads(line).values() if isinstance(v, str))
    for path in sorted((REPO / "src" / "cartog_ci" / "embed").glob("*.py")):
        code = path.read_text()
        out.extend(code[i : i + 600] for i in range(0, len(code), 600))
    rng = random.Random(33)
    alphabet = string.printable + "\x00\x01\x0b\x0c\x1c\x1f\x7f[]##"
    out.extend("".join(rng.choices(alphabet, k=rng.randint(0, 80))) for _ in range(3000))
    return out


def test_the_ids_are_the_tokenizers(pieces, reference):
    checked = 0
    for text in texts():
        ids = pieces.encode(text, 128)
        if ids is None:
            continue
        assert ids == reference.encode(text).ids, repr(text)
        checked += 1
    assert checked > 3900  # every text above but the random ones with a special token in them


@pytest.mark.parametrize("text", FALLS_BACK)
def test_text_outside_ascii_or_with_a_special_token_is_left_to_the_tokenizer(pieces, text):
    assert pieces.encode(text, 128) is None


def test_the_cut_counts_the_two_special_tokens(pieces, reference):
    reference.enable_truncation(16)
    try:
        text = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
        assert pieces.encode(text, 16) == reference.encode(text).ids
        assert len(pieces.encode(text, 16) or []) == 16
    finally:
        reference.enable_truncation(128)


def test_the_vocabulary_file_is_written_once_and_named_by_the_tokenizer(tmp_path):
    spec = packaged_spec()
    assert spec.tokenizer_sha256
    writes: list[Path] = []

    def write(path: Path, data: bytes) -> None:
        writes.append(path)
        embed_onnx._write_atomic(path, data)

    first = wordpiece.load(spec.tokenizer_path, spec.tokenizer_sha256, tmp_path, write=write)
    second = wordpiece.load(spec.tokenizer_path, spec.tokenizer_sha256, tmp_path, write=write)
    assert writes == [tmp_path / f"wordpiece-{spec.tokenizer_sha256[:16]}-2.txt"]
    assert first is not None and first == second
    assert len(first.vocab) == 30522 and (first.cls, first.sep, first.unk) == (101, 102, 100)


def test_a_tokenizer_of_another_kind_is_not_reproduced(tmp_path):
    config = json.loads(packaged_spec().tokenizer_path.read_text())
    config["normalizer"]["lowercase"] = False  # cased: not what WordPiece.encode does
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(config))
    sha = embed_onnx._sha256(path)

    assert wordpiece.load(path, sha, tmp_path / "cache", write=embed_onnx._write_atomic) is None
    # remembered: the file says so, the tokenizer is not parsed again
    (written,) = (tmp_path / "cache").iterdir()
    assert json.loads(written.read_text().splitlines()[0]) == {"format": 2, "sha256": sha, "wordpiece": False}


def test_a_tokenizer_changed_since_it_was_verified_is_not_written(tmp_path):
    spec = packaged_spec()
    assert wordpiece.load(spec.tokenizer_path, "0" * 64, tmp_path, write=embed_onnx._write_atomic) is None
    assert list(tmp_path.iterdir()) == []


def test_a_question_gets_its_vector_without_loading_the_tokenizer():
    asker = OnnxEmbeddingModel(packaged_spec())
    ascii_questions = [t for t in TRICKY if t.strip()]
    asked = np.stack([query_vector(asker, q) for q in ascii_questions])
    assert asker._tokenizer is None
    session = asker._query_session
    assert session is not None
    # the tokenizer's ids on the same session: the same vectors, bit for bit
    np.testing.assert_array_equal(asked, asker._embed(ascii_questions, session, 1))
    other = OnnxEmbeddingModel(packaged_spec())
    assert np.array_equal(query_vector(other, "café au lait"), asker._embed(["café au lait"], session, 1)[0])
    assert other._tokenizer is not None  # asked of the tokenizer itself


@pytest.mark.slow
def test_the_default_models_question_session_gives_the_stored_vector(tmp_path):
    """Recipe 5 (embed/onnx.py): a question's session has no graph
    optimisation and, with these ids, gives exactly the vector the index
    stores for the same text."""
    model = load_default_model(tmp_path / "cache")
    asker = load_default_model(tmp_path / "cache")
    questions = [t for t in TRICKY if t.strip()]
    stored = model.embed_batch(questions)
    asked = np.stack([query_vector(asker, q) for q in questions])
    assert asker._tokenizer is None
    np.testing.assert_array_equal(asked, stored)
