#!/usr/bin/env python3
"""Split the moderation corpus once into train/dev/test by a hash of each line's text.

Usage: split.py SOURCE.tsv... — reads `label<TAB>text` lines (the format of
tests/moderation/README.md), writes tests/moderation/{train,dev,test}.tsv. The bucket of a
line is FNV-1a 64 of its text's UTF-8 bytes modulo 10: 0-5 train, 6 dev, 7-9 test
(tests/moderation.rs checks every line sits in its bucket's file). Run once; the test split
is frozen after its commit and never tuned on.
"""
import os
import sys

HEADER = """# Moderation corpus, {name} split (tests/moderation/README.md): label<TAB>text.
# Bucket = FNV-1a 64 of the text mod 10: 0-5 train, 6 dev, 7-9 test.
"""


def fnv1a64(b: bytes) -> int:
    h = 0xCBF29CE484222325
    for x in b:
        h ^= x
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def split_of(text: str) -> str:
    b = fnv1a64(text.encode("utf-8")) % 10
    return "train" if b <= 5 else "dev" if b == 6 else "test"


def main() -> None:
    out = {"train": [], "dev": [], "test": []}
    seen = set()
    for path in sys.argv[1:]:
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            label, text = line.split("\t", 1)
            if text in seen:
                sys.exit(f"{path}:{n}: repeated text {text!r}")
            seen.add(text)
            out[split_of(text)].append(f"{label}\t{text}")
    here = os.path.dirname(os.path.abspath(__file__))
    for name, lines in out.items():
        with open(os.path.join(here, f"{name}.tsv"), "w", encoding="utf-8") as f:
            f.write(HEADER.format(name=name))
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
