#!/usr/bin/env python3
"""Fails (exit 1) when an `#include "..."` in harness/, images/agent/ or workloads/ closes a
circle between files or runs up the rooms. Each problem is printed as file:line: rule.

The rooms of the harness, lowest first (docs/development.md, "Layout"); a production file may
include its own room and the rooms on lower rungs, never a room on its own rung or above:

    util < model < kernel < catalog < image < protocol < backend < results
         < runner | analysis < bisect < report < cli

Also: report/ never includes runner/ (NOT_ALLOWED). The guest programs, images/agent/ (the agent) and workloads/, compile without the harness: they
include their own room only. The harness includes from them only the tables both sides compile
(SHARED below: the workloads' .def declarations and the agent's t table).

Tests (*_test.cc, harness/testing/, harness/e2e/) may include any room (a test compiles the
agent's C beside its C++ port), but no production file includes a test. Circles are checked
over every file, tests included.
"""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in scripts/
from circles import components, shortest_circle  # noqa: E402 (scripts/circles.py)

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SCANNED = ("harness", "images/agent", "workloads")
RUNGS = [["util"], ["model"], ["kernel"], ["catalog"], ["image"], ["protocol"], ["backend"],
         ["results"], ["runner", "analysis"], ["bisect"], ["report"], ["server"], ["cli"]]
RUNG = {room: i for i, rooms in enumerate(RUNGS) for room in rooms}
# Pairs the ladder allows that the design does not: a renderer formats the models analysis/
# and model/ hold (and bisect/bisect_outcome.h), never the runner's workings.
NOT_ALLOWED = {("report", "runner"): "a renderer includes the runner (take the model instead)"}
GUEST = {"images/agent": "agent", "workloads": "workloads"}
TEST_ROOMS = {"testing", "e2e"}
SOURCE = (".c", ".cc", ".h", ".def")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def shared(path):
    return path.startswith("workloads/") and path.endswith(".def") or path == "images/agent/t975.h"


def room(path):
    for prefix, name in GUEST.items():
        if path.startswith(prefix + "/"):
            return name
    parts = path.split("/")
    return parts[1] if parts[0] == "harness" and len(parts) > 2 else None


def is_test(path):
    return path.endswith("_test.cc") or room(path) in TEST_ROOMS


def resolve(including, name):
    """The included file relative to the tree, as the compilers find it (the including file's
    folder first, then harness/, the library's include folder), or None outside the tree."""
    for base in (os.path.dirname(including), "harness"):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(ROOT, cand)):
            return cand
    return None


def scan():
    edges = {}  # file -> [(line, included file)]
    for top in SCANNED:
        for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
            for n in sorted(names):
                if not n.endswith(SOURCE):
                    continue
                path = os.path.relpath(os.path.join(dirpath, n), ROOT)
                out = edges.setdefault(path, [])
                with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
                    for lineno, text in enumerate(f, 1):
                        m = INCLUDE.match(text)
                        if m:
                            out.append((lineno, m.group(1), resolve(path, m.group(1))))
    return edges


def layer_problem(src, target):
    a, b = room(src), room(target)
    if is_test(src):
        return None
    if is_test(target):
        return "production code includes a test or a fake"
    if a == b:
        return None
    if a in GUEST.values():
        return f"the guest program ({a}) includes {b or 'a file outside its room'}"
    if b in GUEST.values():
        return None if shared(target) else f"{a} includes the guest program's {b}/ (not a shared table)"
    if a not in RUNG or b not in RUNG:
        return f"unknown room ({a} -> {b}): add it to RUNGS in scripts/check-includes.py"
    if (a, b) in NOT_ALLOWED:
        return NOT_ALLOWED[(a, b)]
    if RUNG[b] == RUNG[a]:
        return f"{a} includes {b}, a room on the same rung"
    if RUNG[b] > RUNG[a]:
        return f"{a} includes {b}, a higher room"
    return None


def unit(path):
    """A .h and its .cc are one unit: util/fs.cc -> util/fs."""
    return os.path.splitext(path)[0]


def circles(edges):
    """Each include circle between units once, as its list of (file, line, included file): a
    circle is a unit that includes, through others, a unit that includes it (results/index.cc
    -> bisect_index.h, bisect_index.cc -> index.h)."""
    graph, where = {}, {}
    for f, inc in edges.items():
        out = graph.setdefault(unit(f), [])
        for line, _, t in inc:
            if t in edges and unit(t) != unit(f):
                out.append((line, unit(t)))
                where.setdefault((unit(f), unit(t)), (f, line, t))
        graph.setdefault(unit(f), [])
    successors = {u: [w for _, w in out] for u, out in graph.items()}
    found = []
    for members in components(successors):
        path = shortest_circle(successors, members)
        found.append(([where[edge] for edge in path], members))
    return found


def main():
    edges = scan()
    problems = []
    for src in sorted(edges):
        for line, name, target in edges[src]:
            if target is None:
                if room(src) is not None and not name.startswith("<"):
                    problems.append(f"{src}:{line}: #include \"{name}\" is not in the tree")
                continue
            why = layer_problem(src, target)
            if why:
                problems.append(f"{src}:{line}: {why} ({target})")
    for circle, members in circles(edges):
        ring = " -> ".join(unit(f) for f in [circle[0][0]] + [t for _, _, t in circle])
        also = set(members) - {unit(src) for src, _, _ in circle}
        if also:
            ring += "; also in it: " + ", ".join(sorted(also))
        for src, line, target in circle:
            problems.append(f"{src}:{line}: include circle ({ring})")
    for p in problems:
        print(p)
    if problems:
        print(f"check-includes: {len(problems)} problem(s); the rooms are listed in "
              "scripts/check-includes.py and docs/development.md, \"Layout\"", file=sys.stderr)
        return 1
    print(f"check-includes: {sum(len(v) for v in edges.values())} includes in {len(edges)} "
          "files, no circle, none upward")
    return 0


if __name__ == "__main__":
    sys.exit(main())
