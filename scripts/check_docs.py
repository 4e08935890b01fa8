#!/usr/bin/env python3
"""Checks the README and the manual (docs/) against what capsim does.

- Every `$ capsim ...` command of a ```console block is run (from the repository's root, with
  the capsim given by --capsim first on PATH, through bash with pipefail, stderr merged into
  stdout) and must print exactly the lines under it, up to the next `$ ` line or the block's
  end. A line holding only `…` stands for any number of lines. Commands that are not capsim's
  (`$ cd firmware`, `$ cargo install …`) are not run. A ```text block is illustrative and never
  run. A command continues on the next line after a trailing backslash.
- Every relative link ([…](path) or [… ](path#anchor) or [… ](#anchor)) names a file of the
  repository and, with an anchor, a heading of that file (GitHub's anchors).
- A figure the page writes as prose or as a Markdown table is checked by a comment above it,
  `<!-- check: capsim … -->` (one command, or several, one a line, each may start with `$ `,
  a trailing backslash continuing it), which the reader does not see:
  - above a table: each command prints CSV with a header line (`--format csv`), and the
    table's body rows are the commands' data rows, in order (the headers are not compared:
    the table's are written for readers). Its right-aligned columns (`---:`) are the last
    columns of each CSV row, cell for cell (`1,139` is 1139; backticks and bold aside); its
    other columns are labels for the reader;
  - above a paragraph (the lines up to the next blank line): every number the paragraph
    quotes (outside inline code; `1,139` is 1139) is a number one of the commands prints or
    names. A figure derived from printed ones (a ratio, a difference) is computed by a
    command (`… --format json | jq …`) or not written.
  A check command must exit 0.
- A lesson plan (docs/teaching/) quotes only numbers its commands print: every number in its
  text (outside code; a list's own numbering aside; a decimal comma read as a point) is a
  number of its console blocks' output or of their commands.
- No page cites what a reader cannot see: the course's internal labels (K01, AY3), the
  material's file numbers ("seed 003"), a spec's sections ("spec §4"), "the issue".

`--update` writes what capsim prints into the page in place of an example's lines that differ
(not under a `…`) and of a checked table's cells: read the diff before committing it, since a
changed number needs a reason.

Ends with `docs: N passed, M failed`; exits 1 on any failure, 2 on bad usage.
Usage: python3 scripts/check_docs.py [--capsim PATH] [--update] [FILE.md ...]
"""
import csv
import os
import re
import subprocess
import sys
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ELLIPSIS = "…"
# What a reader cannot see, as it was written before (case-sensitive where it is a label).
UNSEEN = [
    (re.compile(r"\bK0\d\b"), "a course-internal label (K01…): say what it is"),
    (re.compile(r"\bAY\d\b"), "a course-internal label (AY3…): say what it is"),
    (re.compile(r"\bM\d\d/K\d\d\b"), "a course-internal label: say what it is"),
    (re.compile(r"\bseeds? 00\d\b"), "the material's file number: name the lesson or document"),
    (re.compile(r"\bspec §"), "a section of a spec the reader has not got: name the document"),
    (re.compile(r"\bthe issue\b", re.I), "an issue the reader has not read: say what it asks"),
    (re.compile(r"not in this repository"), "say what it is and where it can be found"),
]


def default_pages():
    pages = ["README.md", "CONTRIBUTING.md", "firmware/README.md"]
    for folder, _, files in sorted(os.walk(os.path.join(ROOT, "docs"))):
        for name in sorted(files):
            if name.endswith(".md"):
                pages.append(os.path.relpath(os.path.join(folder, name), ROOT))
    return pages


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|\*", "", heading.strip()).lower()
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    kept = "".join(
        c for c in text
        if c in " -_" or unicodedata.category(c)[0] in "LN"
    )
    return kept.replace(" ", "-")


def anchors(path):
    found, seen, fence = set(), {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fence = not fence
            m = None if fence else re.match(r"^#{1,6} (.*)", line)
            if m:
                s = slug(m.group(1))
                n = seen.get(s, 0)
                seen[s] = n + 1
                found.add(s if n == 0 else f"{s}-{n}")
    return found


def blocks(lines):
    """The fenced blocks: (info word, first body line number, body lines)."""
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(\S*)", lines[i])
        if not m:
            i += 1
            continue
        indent, info, start = m.group(1), m.group(2), i + 1
        j = start
        while j < len(lines) and not lines[j].startswith(indent + "```"):
            j += 1
        yield info, start + 1, [l[len(indent):] for l in lines[start:j]]
        i = j + 1


def examples(body, first_line):
    """The `$ ` commands of a console block: (line number, command, expected lines, the
    expected lines' first line number)."""
    out, i = [], 0
    while i < len(body):
        if not body[i].startswith("$ "):
            i += 1
            continue
        line_no, cmd = first_line + i, body[i][2:]
        while cmd.endswith("\\") and i + 1 < len(body):
            i += 1
            cmd = cmd[:-1] + " " + body[i].strip()
        i += 1
        expected, expected_line = [], first_line + i
        while i < len(body) and not body[i].startswith("$ "):
            expected.append(body[i])
            i += 1
        out.append((line_no, cmd, expected, expected_line))
    return out


NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


def numbers_quoted(lines):
    """(line number, number) for each number in a page's text: outside fenced blocks and
    inline code, a list item's own number aside, a decimal comma read as a point."""
    fence = False
    for n, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence or line.startswith("#"):
            continue
        text = re.sub(r"`[^`]*`", " ", line)
        text = re.sub(r"\]\([^)]*\)", "]", text)  # a link's target
        text = re.sub(r"^\s*\d+\.\s", " ", text)
        for m in NUMBER.finditer(text):
            yield n, m.group(0).replace(",", ".")


def matches(expected, actual):
    """Whether the actual lines are the expected ones, `…` lines standing for any lines."""
    if not expected:
        return not actual
    if expected[0] == ELLIPSIS:
        rest = expected[1:]
        return any(matches(rest, actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and actual[0] == expected[0] and matches(expected[1:], actual[1:])


# A number as a page's prose writes it: thousands grouped by commas (`1,139`), a point for
# the fraction; not part of a word (`x86_64`, `5th`, `1e9`).
PROSE_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\w])")
# A number as capsim prints it.
PRINTED_NUMBER = re.compile(r"\d+(?:\.\d+)?")
GROUPED = re.compile(r"^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")


def canonical(number):
    """A number's text without thousands separators or trailing fraction zeros."""
    number = number.replace(",", "")
    if "." in number:
        number = number.rstrip("0").rstrip(".")
    return number


def check_comments(lines):
    """The `<!-- check: … -->` comments outside fenced blocks: (line number, commands, what
    follows: "table" or "paragraph", its first line number, its lines)."""
    fence, i = False, 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            fence = not fence
        if fence or not line.lstrip().startswith("<!-- check:"):
            i += 1
            continue
        start = i
        body = [line.split("<!-- check:", 1)[1]]
        while "-->" not in body[-1] and i + 1 < len(lines):
            i += 1
            body.append(lines[i])
        body[-1] = body[-1].split("-->", 1)[0]
        commands, pending = [], ""
        for part in body:
            part = part.strip()
            if part.startswith("$ "):
                part = part[2:]
            if not part and not pending:
                continue
            if part.endswith("\\"):
                pending += part[:-1].rstrip() + " "
                continue
            commands.append(pending + part)
            pending = ""
        i += 1
        while i < len(lines) and not lines[i].strip():
            i += 1
        first, target = i, []
        if i < len(lines) and lines[i].lstrip().startswith("|"):
            kind = "table"
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                target.append(lines[i])
                i += 1
        else:
            kind = "paragraph"
            while (i < len(lines) and lines[i].strip() and not lines[i].lstrip().startswith(("```", "<!--"))
                   and not lines[i].startswith("#")):
                target.append(lines[i])
                i += 1
        yield start + 1, commands, kind, first + 1, target


def cells(row):
    """A Markdown table row's cells (no `|` inside a cell: a table that needs one is not checked)."""
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|"):
        row = row[:-1]
    return [c.strip() for c in row.split("|")]


def cell_value(cell):
    """What a table cell says: backticks, bold and thousands separators aside."""
    text = cell.replace("`", "").replace("**", "").strip()
    return text.replace(",", "") if GROUPED.match(text) else text


def written_like(cell, value):
    """VALUE written as CELL was: grouped in thousands if CELL was, in its backticks or bold."""
    text = cell.replace("`", "").replace("**", "").strip()
    if GROUPED.match(text) and re.match(r"^-?\d+(\.\d+)?$", value):
        whole, _, frac = value.partition(".")
        value = f"{int(whole):,}" + (f".{frac}" if frac else "")
    for mark in ("**", "`"):
        if cell.startswith(mark) and cell.endswith(mark):
            value = mark + value + mark
    return value


def main(argv):
    capsim, pages, update = os.path.join(ROOT, "target/release/capsim"), [], False
    args = iter(argv)
    for a in args:
        if a == "--capsim":
            capsim = next(args, None)
            if capsim is None:
                print("check_docs: --capsim needs a path", file=sys.stderr)
                return 2
        elif a == "--update":
            update = True
        elif a.startswith("-"):
            print(f"check_docs: unknown option {a}\n{__doc__.splitlines()[-1]}", file=sys.stderr)
            return 2
        else:
            pages.append(a)
    pages = pages or default_pages()
    capsim = os.path.abspath(capsim)
    if not os.access(capsim, os.X_OK):
        print(f"check_docs: no capsim at {capsim} (build it, or give --capsim PATH)", file=sys.stderr)
        return 2
    env = dict(os.environ, PATH=os.path.dirname(capsim) + os.pathsep + os.environ["PATH"])
    env.pop("NO_COLOR", None)

    passed, failed = 0, 0
    outputs = {}

    def run_command(cmd):
        """(exit status, output lines) of a command, run once per checker run."""
        if cmd not in outputs:
            run = subprocess.run(
                ["bash", "-o", "pipefail", "-c", cmd],
                cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600,
            )
            actual = run.stdout.decode("utf-8", "replace").split("\n")
            if actual and actual[-1] == "":
                actual.pop()
            outputs[cmd] = (run.returncode, actual)
        return outputs[cmd]

    def fail(where, what):
        nonlocal failed
        failed += 1
        print(f"{where}: {what}")

    anchor_cache = {}
    for page in pages:
        path = os.path.join(ROOT, page)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        lines = text.split("\n")
        # What a reader cannot see (README and the manual only).
        if page == "README.md" or page.startswith("docs/"):
            fence = False
            for n, line in enumerate(lines, 1):
                if line.lstrip().startswith("```"):
                    fence = not fence
                if fence:
                    continue  # what a command prints is the lesson's, not the page's words
                for pattern, why in UNSEEN:
                    if pattern.search(line):
                        fail(f"{page}:{n}", f"{why}: {line.strip()}")
        # Relative links, outside code.
        fence = False
        for n, line in enumerate(lines, 1):
            if line.lstrip().startswith("```"):
                fence = not fence
            if fence:
                continue
            for target in re.findall(r"\]\(([^)\s]+)\)", re.sub(r"`[^`]*`", "", line)):
                if re.match(r"^[a-z]+:", target):
                    continue
                file_part, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                if not os.path.exists(dest):
                    fail(f"{page}:{n}", f"link to a missing file: {target}")
                    continue
                if anchor:
                    if os.path.isdir(dest) or not dest.endswith(".md"):
                        fail(f"{page}:{n}", f"an anchor on a file that has no headings: {target}")
                        continue
                    if dest not in anchor_cache:
                        anchor_cache[dest] = anchors(dest)
                    if anchor not in anchor_cache[dest]:
                        fail(f"{page}:{n}", f"link to a missing heading: {target}")
                        continue
                passed += 1
        # The console examples.
        printed = set()
        rewrites = []
        for info, first, body in blocks(lines):
            if info != "console":
                continue
            for line_no, cmd, expected, expected_line in examples(body, first):
                if not re.match(r"^capsim(\s|$)", cmd):
                    continue
                returncode, actual = run_command(cmd)
                printed.update(NUMBER.findall(cmd + "\n" + "\n".join(actual)))
                if matches(expected, actual):
                    passed += 1
                    continue
                if update and ELLIPSIS not in expected:
                    rewrites.append((expected_line, len(expected), actual))
                    print(f"{page}:{line_no}: updated `{cmd}`")
                    continue
                fail(f"{page}:{line_no}", f"`{cmd}` no longer prints what the page shows")
                shown = [l for l in expected if l != ELLIPSIS]
                for k, (want, got) in enumerate(zip(shown + [""] * len(actual), actual + [""] * len(shown))):
                    if want != got:
                        print(f"    first difference, line {k + 1}:\n    page:   {want}\n    capsim: {got}")
                        break
                print(f"    (exit status {returncode}; {len(actual)} lines printed, {len(expected)} shown)")
        # The figures of tables and paragraphs, under their check comments.
        cell_rewrites = []
        for where, commands, kind, first, target in check_comments(lines):
            where = f"{page}:{where}"
            if not commands or not all(re.match(r"^capsim(\s|$)", c) for c in commands):
                fail(where, "a check comment runs one or more capsim commands: <!-- check: capsim … -->")
                continue
            if not target:
                fail(where, "a check comment stands above the table or paragraph it checks")
                continue
            results = [(c, *run_command(c)) for c in commands]
            bad = [(c, rc, out) for c, rc, out in results if rc != 0]
            if bad:
                c, rc, out = bad[0]
                fail(where, f"`{c}` exited with status {rc}: {out[-1] if out else ''}")
                continue
            if kind == "paragraph":
                known = set()
                for c, _, out in results:
                    known.update(canonical(n) for n in PRINTED_NUMBER.findall(c + "\n" + "\n".join(out)))
                for k, line in enumerate(target):
                    text = re.sub(r"`[^`]*`", " ", line)
                    text = re.sub(r"\]\([^)]*\)", "]", text)
                    text = re.sub(r"^\s*\d+\.\s", " ", text)
                    for m in PROSE_NUMBER.finditer(text):
                        if canonical(m.group(1)) in known:
                            passed += 1
                        else:
                            fail(f"{page}:{first + k}", f"{m.group(1)}: no command of its check comment prints it")
                continue
            if len(target) < 2 or not re.match(r"^[\s|:-]+$", target[1]):
                fail(where, "the table under a check comment has no header separator row")
                continue
            aligned = [k for k, c in enumerate(cells(target[1])) if c.endswith(":") and not c.startswith(":")]
            if not aligned:
                fail(where, "the table under a check comment has no right-aligned (---:) column to check")
                continue
            rows = []
            for c, _, out in results:
                rows.extend(list(r) for r in csv.reader(out[1:]))
            body = target[2:]
            if len(body) != len(rows):
                fail(where, f"the table has {len(body)} rows, its commands print {len(rows)}")
                continue
            mismatched = False
            for k, (line, row) in enumerate(zip(body, rows)):
                shown = cells(line)
                if len(row) < len(aligned) or len(shown) <= aligned[-1]:
                    fail(f"{page}:{first + 2 + k}", f"{len(aligned)} checked columns, a CSV row of {len(row)}")
                    mismatched = True
                    continue
                for col, value in zip(aligned, row[len(row) - len(aligned):]):
                    if cell_value(shown[col]) == value:
                        passed += 1
                    elif update:
                        shown[col] = written_like(shown[col], value)
                        cell_rewrites.append((first + 1 + k, "| " + " | ".join(shown) + " |"))
                        print(f"{page}:{first + 2 + k}: updated a cell: {value}")
                    else:
                        fail(f"{page}:{first + 2 + k}", f"column {col + 1}: the page says {shown[col]}, capsim prints {value}")
                        mismatched = True
            if mismatched:
                print(f"    (the table's check comment: {where}; --update writes capsim's values)")
        for index, text in cell_rewrites:
            lines[index] = text
        if cell_rewrites and not rewrites:
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
        if page.startswith("docs/teaching/"):
            for n, number in numbers_quoted(lines):
                if number in printed:
                    passed += 1
                else:
                    fail(f"{page}:{n}", f"{number}: no command of this page prints it")
        if rewrites:
            for start, count, actual in sorted(rewrites, reverse=True):
                # Keep the block's indentation (a block inside a list item).
                pad = re.match(r"^\s*", lines[start - 2]).group(0) if start >= 2 else ""
                lines[start - 1:start - 1 + count] = [pad + l if l else l for l in actual]
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))

    print(f"docs: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
