"""The frame of the tree checks, scripts/check-house.py and scripts/check-docs.py: their command
line (`[--root DIR | --self-test]`), their report (each problem on a line, a count on stderr,
exit 1; else a summary, exit 0), and their self-test: a clean synthetic tree and a broken one (the
clean one with files replaced or added) are written to a temporary folder and checked; the check
must find nothing in the clean tree and exactly the expected problems in the broken one, and exit
0 and 1 on them."""
import contextlib
import io
import os
import sys
import tempfile


def main(name, argv, root, problems, self_test, summary):
    """A check's command line: `argv` as sys.argv, `root` the tree by default, problems(root) ->
    (problem lines, what summary(that) describes), self_test() -> exit status."""
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) == 3 and argv[1] == "--root":
        root = os.path.abspath(argv[2])
    elif len(argv) > 1:
        print(f"usage: {name}.py [--root DIR | --self-test]", file=sys.stderr)
        return 2
    found, checked = problems(root)
    for p in found:
        print(p)
    sys.stdout.flush()
    if found:
        print(f"{name}: {len(found)} problem(s); the rules are in scripts/{name}.py",
              file=sys.stderr)
        return 1
    print(f"{name}: {summary(checked)}")
    return 0


def write_tree(root, files):
    for path, text in files.items():
        os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
        with open(os.path.join(root, path), "w", encoding="utf-8") as f:
            f.write(text)


def self_test(name, problems, main, clean, broken, expected, more=None):
    """Runs check `name` on the two trees: problems(root) gives (problem lines, anything),
    main(argv) the exit status; `expected` lists (file:line: prefix, words of the rule) for the
    broken tree; more(clean_root) adds failures of the check's own. Prints the failures, or one
    line when there are none; returns the exit status of the self-test."""
    failures = []
    with tempfile.TemporaryDirectory(prefix=f"{name}-") as tmp:
        roots = os.path.join(tmp, "clean"), os.path.join(tmp, "broken")
        write_tree(roots[0], clean)
        write_tree(roots[1], {**clean, **broken})
        failures += [f"clean tree: unexpected: {p}" for p in problems(roots[0])[0]]
        found = problems(roots[1])[0]
        for where, what in expected:
            if not any(p.startswith(where) and what in p for p in found):
                failures.append(f"broken tree: missing {where} ... {what}")
        for p in found:
            if not any(p.startswith(where) and what in p for where, what in expected):
                failures.append(f"broken tree: unexpected: {p}")
        if more:
            failures += more(roots[0])
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            codes = tuple(main(["", "--root", root]) for root in roots)
        if codes != (0, 1):
            failures.append(f"exit statuses {codes} on the clean and the broken tree, not (0, 1)")
    for f in failures:
        print(f"{name} --self-test: {f}")
    if failures:
        return 1
    print(f"{name} --self-test: a clean tree passes, a broken one fails with the {len(expected)} "
          "expected problems")
    return 0
