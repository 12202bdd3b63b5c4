#!/usr/bin/env python3
"""The Python + Lexbor peer of `bansha import` (issue 13): saved Discuz! X PC thread pages
into SQLite, in one process.

For every `*.html` file of FOLDER (in name order) it reads the bytes, decodes them by the
page's declared charset (UTF-8 or GBK as GB18030), parses the whole page with selectolax's
Lexbor engine, and takes every post of `#postlist` (`div[id^=post_]`): pid, floor, author,
uid, post time (the `span[title]` of `em#authorposton…` or its text, as epoch seconds in
Asia/Shanghai), the body HTML (`td#postmessage_…` inner HTML) and its plain text with the
jammer removed. All posts go into one SQLite database (`threads`, `posts`, `revisions`
as bansha's, fewer columns) in one transaction, with `executemany`.

Setup (not needed by CI):

    python3 -m venv /tmp/selectolax-venv
    /tmp/selectolax-venv/bin/pip install selectolax

Run on its own:

    /tmp/selectolax-venv/bin/python benches/peers/import_selectolax.py OUT.sqlite FOLDER

Side by side with `bansha import` (writes the pages, runs both alternately, prints medians):

    CARGO_TARGET_DIR=/work/bench-target cargo bench --bench import_peer

(`PEER_PYTHON` names the interpreter; default /tmp/selectolax-venv/bin/python.)
"""

import datetime
import os
import re
import sqlite3
import sys

from selectolax.lexbor import LexborHTMLParser

TZ = datetime.timezone(datetime.timedelta(hours=8))
RE_CHARSET = re.compile(rb"charset\s*=\s*['\"]?([A-Za-z0-9_-]+)")
RE_UID = re.compile(r"uid=(\d+)")
RE_TID = re.compile(r"tid\s*=\s*parseInt\('(\d+)'\)")
RE_TIME = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?")

SCHEMA = """
CREATE TABLE threads (tid INTEGER PRIMARY KEY, title TEXT NOT NULL, total_pages INTEGER);
CREATE TABLE posts (
    tid INTEGER NOT NULL, pid INTEGER NOT NULL, floor INTEGER, author TEXT NOT NULL,
    uid INTEGER, time INTEGER NOT NULL, first_seen INTEGER NOT NULL,
    PRIMARY KEY (tid, pid)
) WITHOUT ROWID;
CREATE TABLE revisions (
    tid INTEGER NOT NULL, pid INTEGER NOT NULL, seq INTEGER NOT NULL, html TEXT NOT NULL,
    text TEXT NOT NULL, source TEXT NOT NULL,
    PRIMARY KEY (tid, pid, seq)
) WITHOUT ROWID;
"""


def decode(raw):
    m = RE_CHARSET.search(raw[:4096])
    enc = m.group(1).decode().lower() if m else "utf-8"
    if enc in ("gbk", "gb2312", "gb18030"):
        enc = "gb18030"
    return raw.decode(enc, errors="replace")


def post_time(em):
    if em is None:
        return 0
    span = em.css_first("span[title]")
    text = span.attributes.get("title") if span is not None else em.text()
    m = RE_TIME.search(text or "")
    if not m:
        return 0
    y, mo, d, h, mi, s = (int(g) if g else 0 for g in m.groups())
    return int(datetime.datetime(y, mo, d, h, mi, s, tzinfo=TZ).timestamp())


def parse_page(text):
    doc = LexborHTMLParser(text)
    m = RE_TID.search(text)
    tid = int(m.group(1)) if m else 0
    subject = doc.css_first("#thread_subject")
    title = subject.text(strip=True) if subject is not None else ""
    total = doc.css_first("div.pg label span[title]")
    total_pages = int(re.sub(r"\D", "", total.attributes["title"])) if total is not None else 1
    posts = []
    for c in doc.css("#postlist > div[id^=post_]"):
        pid = int(c.id[len("post_"):])
        a = c.css_first(".pls .authi a.xw1") or c.css_first(".plc .authi a.xi2")
        author = a.text(strip=True) if a is not None else ""
        um = RE_UID.search(a.attributes.get("href") or "") if a is not None else None
        uid = int(um.group(1)) if um else None
        em = c.css_first("a[id^=postnum] em")
        floor = int(em.text()) if em is not None and em.text().isdigit() else None
        t = post_time(c.css_first("em[id^=authorposton]"))
        msg = c.css_first("td[id^=postmessage_]")
        html = msg.inner_html if msg is not None else ""
        if msg is not None:
            for j in msg.css("font.jammer, [style*='display:none']"):
                j.decompose()
            body = msg.text(separator="", strip=False).strip()
        else:
            body = ""
        posts.append((pid, floor, author, uid, t, html, body))
    return tid, title, total_pages, posts


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: import_selectolax.py OUT.sqlite FOLDER")
    db, folder = sys.argv[1], sys.argv[2]
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.executescript(SCHEMA)
    n = 0
    with conn:
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".html"):
                continue
            path = os.path.join(folder, name)
            with open(path, "rb") as f:
                raw = f.read()
            seen = int(os.stat(path).st_mtime)
            tid, title, total_pages, posts = parse_page(decode(raw))
            conn.execute(
                "INSERT OR REPLACE INTO threads (tid, title, total_pages) VALUES (?, ?, ?)",
                (tid, title, total_pages),
            )
            conn.executemany(
                "INSERT OR IGNORE INTO posts (tid, pid, floor, author, uid, time, first_seen) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(tid, p[0], p[1], p[2], p[3], p[4], seen) for p in posts],
            )
            conn.executemany(
                "INSERT OR IGNORE INTO revisions (tid, pid, seq, html, text, source) "
                "VALUES (?, ?, 0, ?, ?, ?)",
                [(tid, p[0], p[5], p[6], path) for p in posts],
            )
            n += len(posts)
    conn.close()
    print(f"{n} posts")


if __name__ == "__main__":
    main()
