#!/usr/bin/env python3
"""Fails (exit 1) when the manual drifts from its shape. Each problem is printed as file:line:
rule.

- README.md, the page for a newcomer, is at most 300 lines; the reference is the manual in docs/.
- Every page of docs/ is linked from README.md and from the manual's index, docs/README.md.
- Every relative link in README.md and docs/*.md ([text](path), [text](path#heading),
  [text](#heading), ![image](path)) names a file or folder that exists and, with a #heading, a
  heading of that page (GitHub's anchors: lowercase, punctuation dropped, spaces to '-', a repeated
  heading gets -1, -2, ...). Links with a scheme (https:, mailto:) are not followed.
- No line of prose over 400 characters in any Markdown file git tracks (code blocks and table rows
  aside): wrap paragraphs instead.

`--self-test` runs the checks on small synthetic trees, a clean one and one breaking each rule, and
fails unless they say so.
"""
import os
import re
import subprocess
import sys
import urllib.parse

sys.dont_write_bytecode = True  # no __pycache__ in scripts/
import checks  # noqa: E402 (scripts/checks.py)

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MAX_README_LINES = 300
MAX_LINE = 400
LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
LIST_ITEM = re.compile(r"^(\s*)([-+*]|\d+[.)])(\s+)")


def markdown_files(root):
    """The Markdown files git tracks under root (every *.md outside build folders when root is
    not a git checkout)."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard", "--", "*.md"],
                             capture_output=True, text=True, check=True).stdout
        return sorted(p for p in out.split("\0") if p)
    except (OSError, subprocess.CalledProcessError):
        found = []
        for dirpath, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "build")
            found += [os.path.relpath(os.path.join(dirpath, n), root) for n in names
                      if n.endswith(".md")]
        return sorted(found)


def prose_lines(text):
    """(line number, line) of every line outside code blocks and tables. A fenced block runs to
    its closing fence; an indented block is 4 spaces beyond the list item it sits in (or the
    margin), after a blank line."""
    out, fence, list_indent, prev_blank, in_code = [], None, 0, True, False
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1) == fence:
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        if not line.strip():
            prev_blank = True
            continue
        indent = len(line) - len(line.lstrip(" "))
        item = LIST_ITEM.match(line)
        if (prev_blank or in_code) and indent >= list_indent + 4 and not item:
            in_code = True
            prev_blank = False
            continue
        in_code = prev_blank = False
        if item:
            list_indent = len(item.group(0))
        elif indent == 0:
            list_indent = 0
        if line.lstrip().startswith("|"):
            continue
        out.append((n, line))
    return out


def slug(heading):
    """GitHub's anchor of a heading's text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = re.sub(r"[`*]", "", text).strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(text):
    seen, out = {}, set()
    for n, line in prose_lines(text):
        m = re.match(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        base = slug(m.group(1))
        k = seen.get(base, 0)
        seen[base] = k + 1
        out.add(base if k == 0 else f"{base}-{k}")
    return out


def links(text):
    """(line, target) of every link outside code (inline code spans dropped first)."""
    out = []
    for n, line in prose_lines(text):
        line = re.sub(r"`[^`]*`", "", line)
        out += [(n, m.group(2)) for m in LINK.finditer(line)]
        m = REFERENCE.match(line)
        if m:
            out.append((n, m.group(1)))
    return out


def read(root, path):
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        return f.read()


def check_links(root, page, text, problems):
    for n, target in links(text):
        if not target or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
            continue
        path, _, anchor = target.partition("#")
        path = urllib.parse.unquote(path)
        dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        if dest.startswith(".."):
            problems.append(f"{page}:{n}: link to {target} leaves the repository")
            continue
        if not os.path.exists(os.path.join(root, dest)):
            problems.append(f"{page}:{n}: link to {target}: no file {dest}")
            continue
        if anchor and dest.endswith(".md") and os.path.isfile(os.path.join(root, dest)):
            if urllib.parse.unquote(anchor).lower() not in anchors(read(root, dest)):
                problems.append(f"{page}:{n}: link to {target}: {dest} has no heading "
                                f"#{anchor}")


def linked_pages(page, text):
    """The files `page` links to, relative to the root."""
    out = set()
    for _, target in links(text):
        path = urllib.parse.unquote(target.partition("#")[0])
        if path and not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", path):
            out.add(os.path.normpath(os.path.join(os.path.dirname(page), path)))
    return out


def problems(root):
    found = []
    readme = read(root, "README.md") if os.path.isfile(os.path.join(root, "README.md")) else ""
    lines = readme.count("\n") + (0 if readme.endswith("\n") or not readme else 1)
    if lines > MAX_README_LINES:
        found.append(f"README.md:{MAX_README_LINES + 1}: README.md is {lines} lines (at most "
                     f"{MAX_README_LINES}: move reference to docs/)")
    docs_dir = os.path.join(root, "docs")
    pages = sorted(os.path.join("docs", n) for n in os.listdir(docs_dir)
                   if n.endswith(".md")) if os.path.isdir(docs_dir) else []
    index = os.path.join("docs", "README.md")
    from_readme = linked_pages("README.md", readme)
    from_index = linked_pages(index, read(root, index)) if index in pages else set()
    if pages and index not in pages:
        found.append(f"{index}:1: the manual has no index")
    for page in pages:
        if page not in from_readme:
            found.append(f"README.md:1: {page} is not linked from README.md")
        if page != index and index in pages and page not in from_index:
            found.append(f"{index}:1: {page} is not linked from the index")
    for page in ["README.md"] + pages:
        if os.path.isfile(os.path.join(root, page)):
            check_links(root, page, read(root, page), found)
    for path in markdown_files(root):
        if not os.path.isfile(os.path.join(root, path)):
            continue
        for n, line in prose_lines(read(root, path)):
            if len(line) > MAX_LINE:
                found.append(f"{path}:{n}: a line of {len(line)} characters (at most {MAX_LINE} "
                             "outside code blocks and tables: wrap it)")
    return found, pages


# Synthetic trees for --self-test (scripts/checks.py; not git checkouts, so every *.md
# is read).
CLEAN = {
    "README.md": "# x\n\n[Manual](docs/README.md), [a](docs/a.md#two-words), [b](docs/b.md).\n"
                 "See [below](#x) and [a site](https://example.org/none.md).\n\n"
                 "```\n" + "code " * 100 + "\n```\n\n    " + "indented " * 50 + "\n\n"
                 "| " + "cell " * 100 + "|\n",
    "docs/README.md": "# Index\n\n- [a](a.md)\n- [b](b.md#b-1)\n",
    "docs/a.md": "# A\n\n## Two `words`\n\n- an item\n\n      " + "code " * 100 + "\n",
    "docs/b.md": "# B\n\n## B\n\n## B\n\n[back](../README.md) `[not](a link)`\n",
}
BROKEN = {
    "README.md": CLEAN["README.md"].replace("[b](docs/b.md)", "[c](docs/c.md)")
                 + "\n".join(["line"] * 300) + "\n",
    "docs/README.md": "# Index\n\n- [a](a.md#missing)\n",
    "docs/extra.md": "# Extra\n\n" + "word " * 90 + "\n",
}
BROKEN_EXPECTED = [
    ("README.md:301:", "README.md is 312 lines"),
    ("README.md:3:", "link to docs/c.md: no file docs/c.md"),
    ("README.md:1:", "docs/b.md is not linked from README.md"),
    ("README.md:1:", "docs/extra.md is not linked from README.md"),
    ("docs/README.md:1:", "docs/b.md is not linked from the index"),
    ("docs/README.md:1:", "docs/extra.md is not linked from the index"),
    ("docs/README.md:3:", "docs/a.md has no heading #missing"),
    ("docs/extra.md:3:", "a line of 450 characters"),
]


def self_test():
    return checks.self_test("check-docs", problems, main, CLEAN, BROKEN, BROKEN_EXPECTED)


def main(argv):
    def summary(pages):
        return (f"README.md and {len(pages)} pages of docs/: every page linked, every link "
                f"resolves, no line of prose over {MAX_LINE} characters")

    return checks.main("check-docs", argv, ROOT, problems, self_test, summary)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
