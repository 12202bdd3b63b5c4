#!/usr/bin/env python3
"""Train the moderation classifier's weights (wordlists/classifier/weights.tsv), offline.

A one-vs-rest logistic regression per open-ended category over the character bigrams and
trigrams of a post (lower-cased, whitespace dropped: close to what the scanner's normaliser
gives), trained on tests/moderation/train.tsv and, as negatives for calibration, COLD's
neutral train comments (wordlists/sources/cold-train.csv, label 0, the first 4,000; never
its test split). Positives weigh as much as all negatives together (few positives). The
300 heaviest n-grams of each category are kept. Deterministic (fixed order and epochs, no
randomness): running it again writes the same file. Pure Python, no packages:

    python3 wordlists/classifier/train.py
"""
import csv
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CATS = ["emotional", "identity", "past-game", "substitute", "assistant",
        "director-talk", "responsibility", "win-trading"]
COLD_NEGATIVES = 4000
EPOCHS = 12
RATE = 0.3
L2 = 1e-4
KEEP = 300


def grams(text):
    t = "".join(text.lower().split())
    out = set()
    for n in (2, 3):
        for i in range(len(t) - n + 1):
            out.add(t[i:i + n])
    return out


def read_split(name):
    rows = []
    for line in open(os.path.join(ROOT, "tests", "moderation", name + ".tsv"), encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        label, text = line.split("\t", 1)
        labels = set() if label == "-" else set(label.split(","))
        rows.append((labels, text.replace("\\n", "\n")))
    return rows


def read_cold():
    rows = []
    with open(os.path.join(ROOT, "wordlists", "sources", "cold-train.csv"), encoding="utf-8-sig") as f:
        for r in csv.reader(f):
            if len(r) >= 5 and r[3].strip() == "0":
                rows.append((set(), ",".join(r[4:])))
            if len(rows) >= COLD_NEGATIVES:
                break
    return rows


def train(rows, cat):
    w, b = {}, 0.0
    pos = sum(1 for labels, _ in rows if cat in labels)
    neg = len(rows) - pos
    feats = [(grams(t), 1.0 if cat in labels else 0.0) for labels, t in rows]
    for _ in range(EPOCHS):
        for g, y in feats:
            z = b + sum(w.get(x, 0.0) for x in g)
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
            k = (neg / pos if y else 1.0) * RATE / math.sqrt(len(g) + 1)
            err = (y - p) * k
            b += err
            for x in g:
                w[x] = w.get(x, 0.0) * (1 - L2) + err
    top = sorted(w.items(), key=lambda kv: (-abs(kv[1]), kv[0]))[:KEEP]
    return b, dict(top)


def main():
    rows = read_split("train") + read_cold()
    out = ["# Moderation classifier weights: written by train.py, do not edit by hand.",
           "# category<TAB>#bias<TAB>bias, then category<TAB>n-gram<TAB>weight."]
    for cat in CATS:
        b, w = train(rows, cat)
        out.append(f"{cat}\t#bias\t{b:.4f}")
        for g, v in sorted(w.items()):
            if "\t" in g or "\n" in g or g.startswith("#"):
                continue
            out.append(f"{cat}\t{g}\t{v:.4f}")
    with open(os.path.join(HERE, "weights.tsv"), "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
