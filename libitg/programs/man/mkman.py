#!/usr/bin/env python3
"""Writes a program's manual page from its --help text and a page template.

The --help text is the one description of a program's options, so the
manual page is made from it rather than written twice: the template holds
what --help does not (NAME, the longer DESCRIPTION, EXIT STATUS, EXAMPLES,
SEE ALSO) in man(7) macros, and its line `.\\" @HELP@` is replaced by the
help text set in roff:

  - the usage lines (from the first line to the first blank one) become the
    SYNOPSIS, a line that does not start with the command indented;
  - a run of lines at the left margin is a filled paragraph; one ending
    with ':' alone before an indented run is a subsection title;
  - an indented run in which every line is an option ("  -x ARG  what it
    does", its words after a gap of two spaces or on lines indented
    further) is a list of tagged paragraphs;
  - any other indented run is kept line for line, as it was written.

Usage: mkman.py TEMPLATE PROGRAM VERSION DATE > PAGE
"""
import re
import subprocess
import sys

OPTION = re.compile(r"^  (-\S.*?)(?:\s{2,}(\S.*))?$")


def roff_text(s):
    """Escapes text for roff: backslashes, hyphens and a leading control
    character, so that nothing in a help text reads as a request."""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    if s.startswith((".", "'")):
        s = "\\&" + s
    return s


def runs(lines):
    """Splits a block into runs of margin lines and indented lines."""
    out = []
    for line in lines:
        kind = "margin" if not line.startswith(" ") else "indented"
        if out and out[-1][0] == kind:
            out[-1][1].append(line)
        else:
            out.append((kind, [line]))
    return out


def options(lines):
    """The (tag, words) of an indented run if it is a list of options,
    else None. An option's words start at the column its further lines
    are indented to, or after a gap of two spaces."""
    deeper = [len(l) - len(l.lstrip()) for l in lines if l.startswith("   ")]
    col = min(deeper) if deeper else None
    items = []
    for line in lines:
        if line.startswith("  -"):
            if (col and len(line) > col and line[col - 1] == " "
                    and line[col] != " " and line[:col].strip()):
                tag, words = line[:col].strip(), line[col:]
            else:
                m = OPTION.match(line)
                tag, words = m.group(1), m.group(2)
            items.append([tag, [words] if words else []])
        elif line.startswith("   ") and items:
            items[-1][1].append(line.strip())
        else:
            return None
    if any(not words for _, words in items):
        return None
    return items


def render(help_text):
    """The roff of a help text: its SYNOPSIS section, then its body."""
    lines = help_text.rstrip("\n").split("\n")
    end = lines.index("") if "" in lines else len(lines)
    usage, body = lines[:end], lines[end:]
    out = [".SH SYNOPSIS", ".nf"]
    for u in usage:
        u = re.sub(r"^usage: ", "", u).strip()
        starts = u.startswith(("itg-", "mpirun "))
        out.append(roff_text(u if starts else "    " + u))
    out += [".fi", ".SH DESCRIPTION"]
    titled = False
    blocks, cur = [], []
    for line in body + [""]:
        if line.strip():
            cur.append(line.rstrip())
        elif cur:
            blocks.append(cur)
            cur = []
    for block in blocks:
        parts = runs(block)
        for i, (kind, part) in enumerate(parts):
            followed = i + 1 < len(parts)
            if kind == "margin":
                if (followed and len(part) == 1 and part[0].endswith(":")
                        and options(parts[i + 1][1]) is not None):
                    if not titled:
                        out += [".SH OPTIONS"]
                        titled = True
                    out += [".SS " + roff_text(part[0][:-1])]
                    continue
                out += [".PP"] + [roff_text(p.strip()) for p in part]
                continue
            items = options(part)
            if items is None:
                out += [".PP", ".RS 2", ".nf"]
                out += [roff_text(p[2:] if p.startswith("  ") else p)
                        for p in part]
                out += [".fi", ".RE"]
                continue
            if not titled:
                out += [".SH OPTIONS"]
                titled = True
            for tag, words in items:
                out += [".TP", ".B " + roff_text(tag)]
                out += [roff_text(w) for w in words]
    return "\n".join(out) + "\n"


def main():
    template, program, version, date = sys.argv[1:5]
    help_text = subprocess.run([program, "--help"], check=True,
                               capture_output=True, text=True).stdout
    with open(template, encoding="utf-8") as f:
        page = f.read()
    page = page.replace("@VERSION@", version).replace("@DATE@", date)
    page = page.replace('.\\" @HELP@\n', render(help_text))
    sys.stdout.write(page)


if __name__ == "__main__":
    main()
