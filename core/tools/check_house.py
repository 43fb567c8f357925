#!/usr/bin/env python3
"""The house rules the code keeps (README.md, "What is where"; issue 26):

- core/ is in folders by layer, and a layer includes only itself and the
  layers below it (LAYERS, lowest first);
- no folder of the core holds more than MAX_FILES files;
- no product function (core/, plugin/, batch/) is longer than MAX_LINES.

Usage: check_house.py SOURCE_DIR.  Prints every breach; exit status 1 if any.
"""

import os
import re
import sys

# Lowest first: a file may include headers of its own layer and of the
# layers before it.  Layers on one line are siblings: none includes another.
LAYERS = [
    ["base"],
    ["packet", "capture"],
    ["record"],
    ["roles", "sender", "timeline", "incidents"],
    ["connection", "wire"],
    ["verdict"],
    ["explain", "table"],
]
SUPPORT = {"tests", "fuzz", "tools"}   # may include any layer
MAX_FILES = 15
MAX_LINES = 60
PRODUCT = ["core", "plugin", "batch"]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)
# A function definition: a line at column 0 ending with ")" (or a line of
# parameters) followed by a "{" alone at column 0; it ends at the first "}"
# at column 0.
FUNCTION_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def rank_of(layer):
    for rank, names in enumerate(LAYERS):
        if layer in names:
            return rank
    return None


def check_layers(core, breaches):
    known = {name for names in LAYERS for name in names}
    for folder in sorted(os.listdir(core)):
        path = os.path.join(core, folder)
        if not os.path.isdir(path) or folder in SUPPORT:
            continue
        if folder not in known:
            breaches.append("core/%s: a folder that is no layer (add it to LAYERS)" % folder)
            continue
        sources = [f for f in os.listdir(path) if f.endswith((".c", ".h"))]
        if len(sources) > MAX_FILES:
            breaches.append("core/%s: %d files, more than %d" % (folder, len(sources), MAX_FILES))
        mine = rank_of(folder)
        for name in sorted(sources):
            with open(os.path.join(path, name), encoding="utf-8") as f:
                text = f.read()
            for included in INCLUDE.findall(text):
                theirs = rank_of(included)
                if theirs is None:
                    continue
                if theirs > mine or (theirs == mine and included != folder):
                    breaches.append("core/%s/%s includes %s/, %s" % (
                        folder, name, included, "a higher layer" if theirs > mine else "a sibling layer"))


def functions(text):
    """(name, first line, length in lines) of each function definition."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i] == "{" and i > 0:
            head = i - 1
            while head > 0 and lines[head] and not lines[head][0].isalpha() and lines[head][0] != "_":
                head -= 1   # parameters continued over several lines
            end = i + 1
            while end < len(lines) and not lines[end].startswith("}"):
                end += 1
            match = FUNCTION_NAME.search(lines[head])
            if match and not lines[head].startswith(("struct", "typedef", "enum", "union", "static const",
                                                      "const")) and "=" not in lines[head]:
                yield match.group(1), head + 1, end - head + 1
            i = end
        i += 1


def check_functions(source, breaches):
    for top in PRODUCT:
        for root, dirs, files in os.walk(os.path.join(source, top)):
            dirs[:] = [d for d in dirs if d not in SUPPORT]
            for name in sorted(files):
                if not name.endswith(".c"):
                    continue
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                for function, line, length in functions(text):
                    if length > MAX_LINES:
                        breaches.append("%s:%d: %s is %d lines, more than %d" % (
                            os.path.relpath(path, source), line, function, length, MAX_LINES))


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    breaches = []
    check_layers(os.path.join(source, "core"), breaches)
    check_functions(source, breaches)
    for b in breaches:
        print(b)
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
