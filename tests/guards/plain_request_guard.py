#!/usr/bin/env python3
"""Fails when an actor makes a plain `->request(dest, timeout, ...)`.

CAF 0.17 arms a clock entry for every request with a timeout and never
cancels it: the entry, and the strong reference to the requester it holds,
stay until the timeout passes although the answer came long before (see
actors/common/timed_request.hpp). Event-based actors use
`timed_request(self, dest, timeout, ...)` instead.

Usage: plain_request_guard.py DIR...   (each DIR is scanned for .cpp/.hpp)

Allowed without listing:
- actors/common/timed_request.hpp itself (the one place that calls it);
- a blocking request answered with `.receive(` in the same statement, in a
  file that uses a scoped_actor: its end drops its clock entries.
Anything else must be in ALLOWED below, with the reason.
"""
import os
import re
import sys

# (path suffix, text on the line, why it is allowed)
ALLOWED = [
    ("actors/channels/kit/adapter.cpp", "decltype(self->request(",
     "names the response handle's type; nothing is sent"),
    ("actors/channels/kit/adapter.cpp", "pending.push_back(self->request(",
     "a scoped_actor's requests, received in order just below: the scope's "
     "end drops the clock entries"),
    ("actors/store/sharded_front.cpp", "self->request(w, caf::infinite,",
     "no timeout, so no clock entry: a retiring worker must answer every "
     "earlier request before its shard takes another"),
    ("actors/channels/websocket/ws_channel.cpp",
     "self->request(self->state.api, caf::infinite,",
     "no timeout, so no clock entry: the WebUI API runner answers every "
     "call, under its own time limit"),
]

CALL = re.compile(r"->\s*request\s*\(")


def statement_at(text, start):
    """The text from `start` to the end of its statement (the first ';' at
    parenthesis depth 0), without comments."""
    depth = 0
    i = start
    while i < len(text):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == ";" and depth <= 0:
            return text[start:i]
        i += 1
    return text[start:]


def strip_comments(text):
    # Keeps the line breaks so line numbers stay right.
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                  text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def check(path, rel):
    with open(path, encoding="utf-8", errors="replace") as f:
        raw = f.read()
    text = strip_comments(raw)
    lines = raw.split("\n")
    found = []
    for m in CALL.finditer(text):
        line_no = text.count("\n", 0, m.start()) + 1
        line = lines[line_no - 1]
        if ".receive(" in statement_at(text, m.start()) \
                and "scoped_actor" in text:
            continue
        if any(rel.endswith(p) and snippet in line for p, snippet, _ in ALLOWED):
            continue
        found.append((line_no, line.strip()))
    return found


def main(dirs):
    if not dirs:
        print("usage: plain_request_guard.py DIR...", file=sys.stderr)
        return 2
    failures = 0
    scanned = 0
    for d in dirs:
        if not os.path.isdir(d):
            print(f"plain_request_guard: {d} is not a directory",
                  file=sys.stderr)
            return 2
        base = os.path.dirname(os.path.abspath(d))
        for root, _, files in os.walk(d):
            for name in sorted(files):
                if not name.endswith((".cpp", ".hpp")):
                    continue
                path = os.path.join(root, name)
                rel = os.path.relpath(path, base)
                if rel.endswith("actors/common/timed_request.hpp"):
                    continue
                scanned += 1
                for line_no, line in check(path, rel):
                    failures += 1
                    print(f"{rel}:{line_no}: plain request with a timeout: "
                          f"{line}")
    if failures:
        print(f"\n{failures} plain request(s) with a timeout: use "
              "timed_request(self, dest, timeout, ...) from "
              "actors/common/timed_request.hpp (its answer cancels the "
              "timer), or .receive( in a scoped_actor; a legitimate "
              "exception goes in ALLOWED in " + os.path.relpath(__file__)
              + " with its reason.")
        return 1
    print(f"plain_request_guard: {scanned} files, no plain request with a "
          "timeout")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
