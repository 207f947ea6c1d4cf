#!/usr/bin/env python3
"""Lists the Rust functions longer than a limit (default 200 lines), longest first.

Usage: python3 tools/long_functions.py [--limit N] [PATH...]   (default: the workspace crates)

A function's length runs from its `fn` line to its closing brace. Test modules and files under
tests/ count too (pass paths to narrow). Functions that are tables (a match or array mapping
names to data, one entry a line) are long by nature: the list marks functions whose lines are
mostly `=>` arms or literal rows as `table?`, for the reader to judge.
"""

import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRATES = ["isa-amdil", "isa-spa5", "passes", "compiler", "runtime", "tools", "tests", "test-support", "fuzz-targets"]
FN = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(unsafe\s+)?(extern\s+\"C\"\s+)?fn\s+(\w+)")


def code_only(text):
    """`text` with the contents of comments, strings and char literals blanked (newlines
    kept), so that braces can be counted."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 8]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = len(re.match(r"r(#*)", text[i:]).group(1))
            end = text.find('"' + "#" * hashes, i + 2 + hashes)
            j = n if end < 0 else end + 1 + hashes
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j + 1]))
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^'\\])'|'\\u\{[0-9a-fA-F]+\}'|'\\x[0-9a-fA-F]{2}'", text[i:i + 12]):
            m = re.match(r"'(\\.|[^'\\])'|'\\u\{[0-9a-fA-F]+\}'|'\\x[0-9a-fA-F]{2}'", text[i:i + 12])
            out.append(" " * len(m.group(0)))
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    raw = open(path, encoding="utf-8", errors="replace").read()
    lines = code_only(raw).split("\n")
    src_lines = raw.split("\n")
    i = 0
    while i < len(lines):
        m = FN.match(lines[i])
        if not m:
            i += 1
            continue
        depth, opened, j = 0, False, i
        while j < len(lines):
            s = lines[j]
            if not opened and ";" in s and "{" not in s:
                break  # a declaration without a body
            depth += s.count("{") - s.count("}")
            opened = opened or "{" in s
            if opened and depth <= 0:
                break
            j += 1
        if opened:
            body = src_lines[i : j + 1]
            rows = sum(1 for l in body if "=>" in l or re.match(r"^\s*[\(\[\"0-9A-Z].*\),?\s*$", l))
            yield m.group(6), i + 1, j - i + 1, rows / max(1, len(body)) > 0.6
        i += 1  # nested functions are listed too


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=200)
    ap.add_argument("paths", nargs="*")
    args = ap.parse_args()
    paths = args.paths or [os.path.join(ROOT, c) for c in CRATES]
    found = []
    for p in paths:
        for dirpath, dirnames, files in os.walk(p) if os.path.isdir(p) else [(os.path.dirname(p), [], [os.path.basename(p)])]:
            dirnames[:] = [d for d in dirnames if d != "target"]
            for f in files:
                if f.endswith(".rs"):
                    full = os.path.join(dirpath, f)
                    for name, line, n, table in functions(full):
                        if n > args.limit:
                            found.append((n, os.path.relpath(full, ROOT), line, name, table))
    for n, path, line, name, table in sorted(found, reverse=True):
        print(f"{n:5}  {path}:{line}  {name}{'  table?' if table else ''}")
    print(f"{len(found)} functions over {args.limit} lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
