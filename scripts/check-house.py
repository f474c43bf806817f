#!/usr/bin/env python3
"""Fails (exit 1) when the house rules of the sources under harness/, images/ and workloads/
drift. Each problem is printed as file:line: rule.

- No module circle. A module is a source file and the header of the same name taken as one
  (images/agent/job.c and job.h are images/agent/job; a .c or .cc without a header, or a header
  without a source, is a module on its own). Module A uses module B when a file of A includes a
  file of B, or calls a function that B defines with external linkage (the circle
  scripts/check-includes.py cannot see: images/agent/job.c calling job_state_line() of
  job_state.c, which calls job_is_word() of job.c). A call is `name(` with no object before it
  (`x.name(`, `x->name(` are members); a name two modules define, or a member function's name,
  resolves to no module and makes no edge. The agent, the workloads and the harness are
  separate programs: a call resolves within its own.
- No function over 60 lines, from the first line of its signature to its closing brace.
- No file over 500 lines.

Tests (*_test.cc, harness/testing/, harness/e2e/) are left out of all three. The sources are
read without a compiler: comments, strings and preprocessor lines are dropped, and braces tell
namespaces, classes, initialisers and function bodies apart. `--self-test` runs the checks on
small synthetic trees, a clean one and one breaking each rule, and fails unless they say so.
"""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in scripts/
from circles import components, shortest_circle  # noqa: E402 (scripts/circles.py)
import checks  # noqa: E402 (scripts/checks.py)

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SCANNED = ("harness", "images", "workloads")
SOURCE = (".c", ".cc", ".h", ".def")
MAX_FUNCTION_LINES = 60
MAX_FILE_LINES = 500
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.']*|::|->|\S")
# Words before a call that do not make `word name(` a declaration.
STATEMENT_WORDS = {"return", "co_return", "throw", "case", "else", "do", "not", "and", "or",
                   "sizeof", "new", "delete", "co_await", "co_yield"}
CLASS_WORDS = {"class", "struct", "union", "enum"}
ACCESS_WORDS = {"public", "private", "protected"}


def is_test(path):
    return (path.endswith("_test.cc") or path.startswith("harness/testing/")
            or path.startswith("harness/e2e/"))


def program(path):
    """The program a file is part of: symbols resolve within it."""
    if path.startswith("images/"):
        return "agent"
    return "workloads" if path.startswith("workloads/") else "harness"


def module(path):
    return os.path.splitext(path)[0]


def strip(text):
    """The text with comments, string and character literals and preprocessor lines blanked
    (newlines kept, so lines keep their numbers); a string becomes the token "" ."""
    out, i, n = [], 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            out.append(c)
            i += 1
            line_start = True
            continue
        if line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if line_start and c == "#":  # a preprocessor line, with its continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append("\n")
                    i += 2
                    continue
                i += 1
            continue
        line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end) or " ")
            i = end
            continue
        m = re.match(r'(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(', text[i:i + 40])
        if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = ")" + m.group(1) + '"'
            end = text.find(close, i + m.end())
            end = n if end < 0 else end + len(close)
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
            continue
        if c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append('""' if c == '"' else "0")
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def tokens(text):
    toks = []
    for lineno, line in enumerate(strip(text).split("\n"), 1):
        toks.extend((m.group(0), lineno) for m in TOKEN.finditer(line))
    return toks


class Scope:
    """What a '{' opened: ns (also extern "C"), class, func (a function body), block (a brace
    inside one) or init (an initialiser, also a constructor's `member_{value}`)."""

    def __init__(self, kind, name="", anonymous=False, first=0, name_line=0, external=False):
        self.kind = kind
        self.name = name
        self.anonymous = anonymous  # namespace {
        self.first = first  # func: the first line of its signature
        self.name_line = name_line  # func: the line of its name
        self.external = external  # func: a definition other modules can call
        self.in_init_list = False  # init: a brace of a constructor's initialiser list


def skip_template(stmt):
    """The statement's tokens after any leading `template <...>`."""
    i = 0
    while i < len(stmt) and stmt[i][0] == "template":
        i += 1
        depth = 0
        while i < len(stmt):
            t = stmt[i][0]
            depth += t == "<"
            depth -= t == ">"
            i += 1
            if depth <= 0:
                break
    return stmt[i:]


def declarator(stmt):
    """(index of the parameter list's '(', its ')') of a function header, or None."""
    angle = paren = 0
    for i, (t, _) in enumerate(stmt):
        if t == "(":
            if paren == 0 and angle == 0 and i > 0 and (
                    re.match(r"[A-Za-z_]", stmt[i - 1][0]) or stmt[i - 1][0] in (">", ")")):
                depth = 0
                for j in range(i, len(stmt)):
                    depth += stmt[j][0] == "("
                    depth -= stmt[j][0] == ")"
                    if depth == 0:
                        return i, j
                return None
            paren += 1
        elif t == ")":
            paren -= 1
        elif t == "<" and paren == 0 and i > 0 and re.match(r"[A-Za-z_]", stmt[i - 1][0]):
            angle += 1
        elif t == ">" and angle > 0:
            angle -= 1
        elif t == "=" and paren == 0 and angle == 0:
            return None  # an initialiser (a lambda, an aggregate), not a function
    return None


def class_head(words):
    """The name a class, struct, union or enum head declares (`struct a::B final : C` -> a::B,
    `struct {` -> "", `class [[nodiscard]] Result<void>` -> Result), or None when the words go
    on as a function's return type (`enum rr_stop rr_decide(`)."""
    k = 0
    while k < len(words) and words[k] in ("class", "struct"):  # enum class
        k += 1
    if k < len(words) and words[k] == "[":  # [[attributes]]
        while k < len(words) and words[k] != "]":
            k += 1
        k += 2
    name = []
    while k < len(words) and re.match(r"[A-Za-z_]", words[k]) and words[k] != "final":
        name.append(words[k])
        if k + 1 < len(words) and words[k + 1] == "::":
            k += 2
        else:
            k += 1
            break
    if name and k < len(words) and words[k] == "<":  # a specialisation: Result<void>
        depth = 0
        while k < len(words):
            depth += (words[k] == "<") - (words[k] == ">")
            k += 1
            if depth == 0:
                break
    rest = words[k:]
    if not rest or rest[0] in (":", "final"):
        return "::".join(name)
    return None


def initialiser_list_brace():
    scope = Scope("init")
    scope.in_init_list = True
    return scope


def function_name(stmt, open_paren):
    """The declared name before the parameter list: `ns::Class::name`, `operator==`."""
    i = open_paren - 1
    parts = []
    if stmt[i][0] == ")" or not re.match(r"[A-Za-z_~]", stmt[i][0]):
        while i >= 0 and stmt[i][0] != "operator":  # operator(), operator==
            i -= 1
        if i < 0:
            return None
        parts.append("operator")
        i -= 1
    else:
        parts.append(stmt[i][0])
        i -= 1
        if i >= 0 and stmt[i][0] == "operator":  # operator bool
            parts[-1] = "operator " + parts[-1]
            i -= 1
        if i >= 0 and stmt[i][0] == "~":
            parts[-1] = "~" + parts[-1]
            i -= 1
    while i >= 1 and stmt[i][0] == "::" and re.match(r"[A-Za-z_]", stmt[i - 1][0]):
        parts.append(stmt[i - 1][0])
        i -= 2
    return "::".join(reversed(parts))


class Source:
    """One file's includes, function bodies, definitions and calls."""

    def __init__(self, path, text):
        self.path = path
        self.lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        self.includes = [(n, m.group(1)) for n, line in enumerate(text.split("\n"), 1)
                         if (m := INCLUDE.match(line))]
        self.functions = []  # (name, first line, last line)
        self.defines = {}  # external function name -> line
        self.members = set()  # names of functions declared or defined in a class
        self.local = set()  # every function this file defines: its calls of them stay here
        self.namespaces = set()
        self.calls = []  # (name, line)
        self.parse(tokens(text))

    def parse(self, toks):
        scopes = [Scope("ns")]
        stmt_start = 0
        init_list = False  # inside a constructor's `: a_{x}, b_(y)` before its body
        for i, (t, line) in enumerate(toks):
            top = scopes[-1]
            if top.kind in ("func", "block"):
                if t == "{":
                    scopes.append(Scope("block"))
                elif t == "}":
                    scopes.pop()
                    if top.kind == "func":
                        self.end_function(top, line)
                        stmt_start = i + 1
                self.maybe_call(toks, i)
                continue
            if top.kind == "init":
                if t == "{":
                    scopes.append(Scope("init"))
                elif t == "}":
                    scopes.pop()
                    if scopes[-1].kind != "init" and not init_list:
                        stmt_start = i + 1
                continue
            stmt = toks[stmt_start:i]
            if t == ";":
                self.declaration(stmt, top)
                stmt_start, init_list = i + 1, False
            elif t == ":" and top.kind == "class" and len(stmt) == 1 and stmt[0][0] in ACCESS_WORDS:
                stmt_start = i + 1
            elif t == "{":
                scope = self.brace(stmt, scopes, init_list)
                scopes.append(scope)
                init_list = scope.in_init_list
                if scope.kind != "init":
                    stmt_start = i + 1
            elif t == "}":
                if len(scopes) > 1:
                    scopes.pop()
                stmt_start, init_list = i + 1, False

    def brace(self, stmt, scopes, init_list):
        """What the '{' after `stmt` opens, at namespace or class scope."""
        top = scopes[-1]
        words = [t for t, _ in stmt]
        if init_list and words and (re.match(r"[A-Za-z_]", words[-1]) or words[-1] == ">"):
            return initialiser_list_brace()  # `member_{value}`
        if "namespace" in words:
            k = words.index("namespace")
            name = "::".join(w for w in words[k + 1:] if w != "::")
            for part in name.split("::"):
                if part:
                    self.namespaces.add(part)
            return Scope("ns", name, anonymous=not name)
        if words[:1] == ["extern"] and words[1:2] == ['""']:
            return Scope("ns", top.name)
        body = skip_template(stmt)
        body_words = [t for t, _ in body]
        first_paren = body_words.index("(") if "(" in body_words else len(body_words)
        cls = next((k for k, w in enumerate(body_words) if w in CLASS_WORDS), None)
        if cls is not None and cls < first_paren:
            name = class_head(body_words[cls + 1:])
            if name is not None:
                outer = top.name if top.kind == "class" else ""
                return Scope("class", f"{outer}::{name}" if outer and name else name)
        decl = declarator(body)
        if decl is None:
            return Scope("init")
        if ":" in body_words[decl[1] + 1:] and words[-1] not in (")", "}"):
            return initialiser_list_brace()  # the constructor's body comes after the list
        name = function_name(body, decl[0])
        if name is None:
            return Scope("init")
        if top.kind == "class":
            self.members.add(name.split("::")[-1])
            name = f"{top.name}::{name}" if top.name else name
        external = (top.kind == "ns" and not any(s.anonymous for s in scopes)
                    and "static" not in body_words[:decl[0]] and "::" not in name
                    and name != "main" and not name.startswith("operator")
                    and not re.fullmatch(r"[A-Z][A-Z0-9_]+", name))  # TEST(...) and such
        return Scope("func", name, first=body[0][1], name_line=body[decl[0] - 1][1],
                     external=external)

    def declaration(self, stmt, top):
        """A member function declared in a class: its name is no free function's."""
        if top.kind != "class":
            return
        body = skip_template(stmt)
        decl = declarator(body)
        if decl is not None:
            name = function_name(body, decl[0])
            if name:
                self.members.add(name.split("::")[-1])

    def end_function(self, scope, line):
        self.functions.append((scope.name, scope.first, line))
        self.local.add(scope.name.split("::")[-1])
        if scope.external:
            self.defines.setdefault(scope.name, scope.name_line)

    def maybe_call(self, toks, i):
        t = toks[i][0]
        if i + 1 >= len(toks) or toks[i + 1][0] != "(" or not re.match(r"[A-Za-z_]", t):
            return
        before = toks[i - 1][0] if i > 0 else ";"
        if before in (".", "->"):
            return
        if before == "::":
            qualifier = toks[i - 2][0] if i > 1 else ""
            if qualifier not in self.namespaces and qualifier != "foliolab":
                return
        elif (re.match(r"[A-Za-z_]", before) and before not in STATEMENT_WORDS) or before in (
                ">", "*", "&", "&&", "~"):
            return  # a declaration: `Type name(args)`
        self.calls.append((t, toks[i][1]))


def read_tree(root):
    sources = {}
    for top in SCANNED:
        for dirpath, dirs, names in os.walk(os.path.join(root, top)):
            dirs.sort()
            for n in sorted(names):
                path = os.path.relpath(os.path.join(dirpath, n), root)
                if not n.endswith(SOURCE) or is_test(path):
                    continue
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                    sources[path] = Source(path, f.read())
    return sources


def resolve(root, including, name):
    """The included file as the compilers find it: the including file's folder first, then
    harness/ (the library's include folder); None outside the tree."""
    for base in (os.path.dirname(including), "harness"):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def module_graph(root, sources):
    """module -> {used module: (file, line, why)}, the first place each use is seen."""
    graph = {module(p): {} for p in sources}
    owners = {}  # (program, function name) -> {module: (file, line)}
    members = {}  # program -> member function names
    for p, src in sources.items():
        for name, line in src.defines.items():
            owners.setdefault((program(p), name), {})[module(p)] = (p, line)
        members.setdefault(program(p), set()).update(src.members)
    for p, src in sorted(sources.items()):
        mine = graph[module(p)]
        for line, name in src.includes:
            target = resolve(root, p, name)
            if target in sources and module(target) != module(p):
                mine.setdefault(module(target), (p, line, f'#include "{name}"'))
        for name, line in src.calls:
            defined = owners.get((program(p), name), {})
            if len(defined) != 1 or name in members[program(p)] or name in src.local:
                continue  # unknown, ambiguous, a member's name, or the file's own
            (target, (where, at)), = defined.items()
            if target != module(p):
                mine.setdefault(target, (p, line, f"calls {name}(), defined at {where}:{at}"))
    return graph


def problems(root):
    sources = read_tree(root)
    out = []
    graph = module_graph(root, sources)
    successors = {m: sorted(uses) for m, uses in graph.items()}
    for members in components(successors):
        ring = shortest_circle(successors, members)
        text = " -> ".join([ring[0][0]] + [b for _, b in ring])
        also = sorted(set(members) - {a for a, _ in ring})
        if also:
            text += "; also in it: " + ", ".join(also)
        for a, b in ring:
            where, line, why = graph[a][b]
            out.append(f"{where}:{line}: module circle ({text}): {a} uses {b}: {why}")
    for p, src in sorted(sources.items()):
        for name, first, last in src.functions:
            if last - first + 1 > MAX_FUNCTION_LINES:
                out.append(f"{p}:{first}: function {name} is {last - first + 1} lines "
                           f"(at most {MAX_FUNCTION_LINES})")
        if src.lines > MAX_FILE_LINES:
            out.append(f"{p}:{MAX_FILE_LINES + 1}: file is {src.lines} lines "
                       f"(at most {MAX_FILE_LINES})")
    return out, sources


def main(argv):
    def summary(sources):
        functions = sum(len(s.functions) for s in sources.values())
        return (f"{len(sources)} files, {functions} functions: no module circle, none over "
                f"{MAX_FUNCTION_LINES} lines, no file over {MAX_FILE_LINES}")

    return checks.main("check-house", argv, ROOT, problems, self_test, summary)


def body(n):
    """A function body of n lines in all, signature and closing brace included."""
    return "\n".join(["  x++;"] * (n - 2))


# Synthetic trees for --self-test: each file's text, and what the checks must say of the tree
# (file:line prefixes and a word of each rule; nothing else may be reported).
CLEAN = {
    "harness/util/a.h": '#pragma once\nnamespace foliolab {\nint helper(int x);\n'
                        'class Box {\n public:\n  int get() const { return v_; }\n'
                        '  int size();\n private:\n  int v_ = 0;\n};\n}  // namespace foliolab\n',
    # A constructor's initialiser braces, a raw string and a comment holding braces, a lambda,
    # an anonymous namespace's helper named like another module's function, enum return types.
    "harness/util/a.cc": '#include "util/a.h"\n#include "util/b.h"\nnamespace foliolab {\n'
                         'namespace {\nint shared_name(int x) { return x; }\n}  // namespace\n'
                         'struct Holder {\n  Holder(int a) : a_{a}, b_(a) {}\n  int a_, b_;\n};\n'
                         'const char* kText = R"({ "a": "}" })";  // } {\n'
                         'int helper(int x) {\n  auto f = [](int y) { return y; };\n'
                         '  return f(x) + shared_name(x) + b_fn(x);\n}\n'
                         'int Box::size() {\n  /* { */ return 1;\n}\n}  // namespace foliolab\n',
    "harness/util/b.h": '#pragma once\nnamespace foliolab {\nint b_fn(int x);\n}\n',
    "harness/util/b.cc": '#include "util/b.h"\nnamespace foliolab {\nint shared_name(int x);\n'
                         'int shared_name(int x) { return x; }\n'
                         'int b_fn(int x) {\n' + body(60) + '\n}\n}  // namespace foliolab\n',
    "images/agent/base.h": "enum kind { K_A, K_B };\nenum kind kind_of(const char *s);\n",
    "images/agent/base.c": '#include "base.h"\n#define TWICE(x) \\\n  ((x) + (x))\n'
                           "enum kind kind_of(const char *s) {\n"
                           "  return s[0] == '{' ? K_A : K_B;\n}\n",
    "workloads/w.c": '#include "../images/agent/base.h"\nint main(void) {\n'
                     '  return kind_of("}") == K_A;\n}\n',
    # Tests are left out: a long function, a long file.
    "harness/util/a_test.cc": "void long_test() {\n" + body(80) + "\n}\n" + "//\n" * 600,
}
BROKEN = {
    # The agent's circle through a source without a header: job.c calls job_state.c, which
    # calls back into job.c.
    "images/agent/job.h": "int job_is_word(const char *s);\nint job_state_line(char *s);\n",
    "images/agent/job.c": '#include "job.h"\nint job_is_word(const char *s) { return !!*s; }\n'
                          "int job_parse(char *s) {\n  return job_state_line(s);\n}\n",
    "images/agent/job_state.c": '#include <string.h>\n\nint job_state_line(char *s) {\n'
                                "  return job_is_word(s);\n}\n",
    # An include circle between two C++ modules, and their long function and file.
    "harness/kernel/p.h": '#pragma once\n#include "kernel/q.h"\n',
    "harness/kernel/q.h": '#pragma once\nvoid q();\n',
    "harness/kernel/q.cc": '#include "kernel/q.h"\n#include "kernel/p.h"\nnamespace foliolab {\n'
                           "void q() {\n" + body(61) + "\n}\n}\n" + "//\n" * 440,
}
BROKEN_EXPECTED = [
    ("images/agent/job.c:4:", "module circle (images/agent/job -> images/agent/job_state"),
    ("images/agent/job_state.c:4:", "images/agent/job_state uses images/agent/job: calls "
                                    "job_is_word()"),
    ("harness/kernel/p.h:2:", "module circle (harness/kernel/p -> harness/kernel/q -> "
                              "harness/kernel/p)"),
    ("harness/kernel/q.cc:2:", "harness/kernel/q uses harness/kernel/p"),
    ("harness/kernel/q.cc:4:", "function q is 61 lines (at most 60)"),
    ("harness/kernel/q.cc:501:", "file is 505 lines (at most 500)"),
]


def self_test():
    def functions_found(clean):
        _, sources = problems(clean)
        found = {n for s in sources.values() for n, _, _ in s.functions}
        return [f"clean tree: function {n} not found (found {sorted(found)})"
                for n in ("helper", "Box::get", "Box::size", "Holder::Holder", "kind_of", "b_fn")
                if n not in found]

    return checks.self_test("check-house", problems, main, CLEAN, BROKEN, BROKEN_EXPECTED,
                            functions_found)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
