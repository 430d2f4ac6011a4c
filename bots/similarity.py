"""How alike two bot programs are: a bottom-k MinHash of token shingles of their sources.

Two uploads with the same bytes have the same SHA-256; this catches the copy that
was renamed, reformatted or recommented, or moved into another file. Every text file
of an upload (:func:`archive_sketch`: the entry point and each helper module, data
file or script beside it) is cut into tokens with identifiers, numbers and strings
replaced by a class name (``ID``, ``NUM``, ``STR``) and comments dropped, so renaming
variables or reformatting changes nothing; keywords and punctuation stay, as they carry the
program's shape. Runs of :data:`SHINGLE` tokens of one file are hashed (BLAKE2b, 64
bits), the shingles of all the files pooled, and the :data:`SKETCH` smallest hashes
kept: the bottom-k sketch of the upload's shingle set. So the same logic counts
whichever file holds it: two uploads that share a helper module behind different entry
points are as alike as the helper is a share of what they hold.
The Jaccard similarity of two shingle sets is estimated from the sketches
(Broder's estimator: the share of the k smallest hashes of the union that both
sets hold), with a standard error of about ``sqrt(J(1 - J) / k)``, 0.03 near
J = 0.8 with k = 128.

Why this and not a fuzzy hash of the bytes (ssdeep, TLSH): a byte-level hash moves
with every renamed identifier and reflowed line, while the token stream does not;
and it is a few lines of standard library. Pure: no framework.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path

#: Tokens per shingle.
SHINGLE = 5
#: Hashes kept per sketch.
SKETCH = 128
#: Estimated Jaccard similarity from which two uploads count as near-identical.
NEAR_IDENTICAL = 0.8
#: The manifest every unpacked upload holds (``bots.archive``): alike in every upload.
MANIFEST = "bot.json"

_KEYWORDS = frozenset(
    """and as assert async await break case class const continue def del elif else
    except export false finally for from function if import in is lambda let match
    new none nonlocal not null or pass raise return self static switch this throw
    true try typeof var void while with yield""".split()
)
_TOKEN = re.compile(
    r"""(?P<comment>\#[^\n]*|//[^\n]*|/\*.*?\*/)
      |(?P<str>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`(?:\\.|[^`\\])*`)
      |(?P<num>\d[\w.]*)
      |(?P<word>[A-Za-z_$][\w$]*)
      |(?P<op>[^\s\w])""",
    re.VERBOSE | re.DOTALL,
)


def tokens(source: str) -> list[str]:
    """The normalised token stream of ``source`` (module docstring)."""
    out = []
    for match in _TOKEN.finditer(source):
        kind = match.lastgroup
        if kind == "comment":
            continue
        if kind == "word":
            word = match.group().lower()
            out.append(word if word in _KEYWORDS else "ID")
        elif kind == "str":
            out.append("STR")
        elif kind == "num":
            out.append("NUM")
        else:
            out.append(match.group())
    return out


def shingles(source: str) -> set[str]:
    """The runs of :data:`SHINGLE` normalised tokens of one source (a shorter source is
    one run; an empty one, none)."""
    stream = tokens(source)
    runs = {" ".join(stream[i : i + SHINGLE]) for i in range(max(1, len(stream) - SHINGLE + 1))}
    return {run for run in runs if run}


def archive_sketch(sources: Iterable[str]) -> list[int]:
    """The bottom-:data:`SKETCH` MinHash sketch of the shingles of all ``sources`` (the
    text files of one upload; shingles never run across two files), ascending."""
    hashes: set[int] = set()
    for source in sources:
        hashes |= {
            int.from_bytes(hashlib.blake2b(run.encode(), digest_size=8).digest(), "big")
            for run in shingles(source)
        }
    return sorted(hashes)[:SKETCH]


def sketch(source: str) -> list[int]:
    """The sketch of one source alone (:func:`archive_sketch` of a single file)."""
    return archive_sketch([source])


def similarity(a: list[int], b: list[int]) -> float:
    """The estimated Jaccard similarity of the shingle sets of two sketches (0..1)."""
    if not a or not b:
        return 0.0
    union = sorted(set(a) | set(b))[:SKETCH]
    both = set(a) & set(b)
    return sum(1 for h in union if h in both) / len(union)


def tree_sources(root: Path, *, first: str = "", limit: int = 2 * 1024 * 1024) -> list[str]:
    """The text files under ``root`` (an unpacked upload), ``first`` (its entry point)
    first and then the others by path, up to ``limit`` bytes in all; binary files (a NUL
    byte, or not UTF-8) and the top-level :data:`MANIFEST` are left out."""
    head = root / first if first else None
    paths = sorted(p for p in root.rglob("*") if p.is_file() and p != head)
    sources, left = [], limit
    for path in [head, *paths] if head is not None else paths:
        if left <= 0 or not path.is_file() or path == root / MANIFEST:
            continue
        with path.open("rb") as file:
            data = file.read(left)
        try:  # the last file read may end inside a character
            text = data.decode("utf-8", errors="strict" if len(data) < left else "ignore")
        except UnicodeDecodeError:
            continue
        if "\0" not in text:
            sources.append(text)
            left -= len(data)
    return sources
