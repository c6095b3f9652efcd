#!/usr/bin/env python3
"""Lists the public declarations in Sources/ that have no `///` doc comment right above them.

A declaration is public when it says `public` or `open`, or when it is implicitly public: an
enum case of a public enum, a requirement of a public protocol, or a member without an access
modifier in a `public extension`. A `public` member of a type that is not itself public is not
reported (it is not part of the library's surface). The doc comment must be the line just
above the declaration, or above its attributes (`@discardableResult`, `@Sendable` ...); a
blank line or a plain `//` comment in between does not count.

Usage: .ci/check-public-docs.py [--count] [ROOT]
  ROOT     the directory to scan (default: Sources/ next to .ci/)
  --count  also print the number of public declarations per module (first directory level)
Exit status: 0 when every public declaration is documented, 1 otherwise.
"""

import os
import re
import sys

MODIFIERS = (
    r"(?:public|open|package|internal|fileprivate|private)(?:\(set\))?|final|static|class|"
    r"nonisolated(?:\(unsafe\))?|override|mutating|nonmutating|convenience|required|indirect|"
    r"dynamic|lazy|weak|unowned|optional|prefix|postfix|infix|consuming|borrowing|distributed"
)
ATTRIBUTE = r"@[A-Za-z_][A-Za-z0-9_]*(?:\([^()]*(?:\([^()]*\))*[^()]*\))?"
KEYWORDS = (
    "func|var|let|init|deinit|subscript|case|struct|class|enum|actor|protocol|extension|"
    "typealias|associatedtype|macro|operator|precedencegroup"
)
DECLARATION = re.compile(
    rf"^(?P<attrs>(?:{ATTRIBUTE}\s+)*)(?P<mods>(?:(?:{MODIFIERS})\s+)*)"
    rf"(?P<keyword>{KEYWORDS})(?:\b|(?=[?!(<]))"
)
ATTRIBUTE_LINE = re.compile(rf"^(?:{ATTRIBUTE}\s*)+$")
TYPE_KEYWORDS = {"struct", "class", "enum", "actor", "protocol", "extension"}


def strip_code(text):
    """`text` with comments and string literals blanked (newlines kept), so braces can be counted."""
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
        elif c == '"' or (c == "#" and re.match(r'#+"', text[i:])):
            hashes = len(re.match(r"#*", text[i:]).group(0))
            start = i
            i += hashes
            triple = text.startswith('"""', i)
            quote = '"""' if triple else '"'
            i += len(quote)
            closing = quote + "#" * hashes
            depth = 0  # interpolation depth
            while i < n:
                if depth == 0 and text.startswith(closing, i):
                    i += len(closing)
                    break
                if text[i] == "\\" and depth == 0:
                    if text.startswith("\\" + "#" * hashes + "(", i):
                        depth, i = 1, i + 2 + hashes
                        continue
                    i += 2
                    continue
                if depth:
                    if text[i] == "(":
                        depth += 1
                    elif text[i] == ")":
                        depth -= 1
                i += 1
            out.append(re.sub(r"[^\n]", " ", text[start:i]))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def scan(path):
    """Yields (line number, declaration line, is public, is documented) for each declaration."""
    with open(path, encoding="utf-8") as handle:
        raw = handle.read()
    raw_lines = raw.split("\n")
    code_lines = strip_code(raw).split("\n")

    # Each scope: (kind, public-ness of its members by default, members count as public at all)
    scopes = [("file", False, True)]
    pending = None  # the last declaration header seen since the last brace
    for index, code in enumerate(code_lines):
        stripped = code.strip()
        match = DECLARATION.match(stripped)
        if match:
            keyword = match.group("keyword")
            modifiers = match.group("mods").split()
            explicit = any(m.startswith(("public", "open")) and "(set)" not in m for m in modifiers)
            restricted = any(m.split("(")[0] in ("package", "internal", "fileprivate", "private") and "(set)" not in m for m in modifiers)
            kind, default_public, visible = scopes[-1]
            in_code_body = kind not in TYPE_KEYWORDS and kind != "file"
            if not in_code_body:
                if keyword == "extension":
                    is_public = False
                elif keyword == "case":
                    is_public = kind == "enum" and visible
                else:
                    is_public = visible and not restricted and (explicit or default_public)
                if is_public or (explicit and keyword != "extension"):
                    if is_public:
                        yield index + 1, raw_lines[index].strip(), documented(raw_lines, index)
                # What a brace opened by this declaration will hold.
                if keyword in TYPE_KEYWORDS:
                    if keyword == "extension":
                        pending = ("extension", explicit, visible)
                    elif keyword == "protocol":
                        pending = ("protocol", is_public, is_public)
                    else:
                        pending = (keyword, False, is_public)
                else:
                    pending = (keyword, False, False)
        for char in code:
            if char == "{":
                scopes.append(pending or ("block", False, False))
                pending = None
            elif char == "}":
                if len(scopes) > 1:
                    scopes.pop()
                pending = None


def documented(lines, index):
    """Whether the declaration at `index` has a `///` line right above it (past its attributes)."""
    j = index - 1
    while j >= 0:
        text = lines[j].strip()
        if text.startswith("///"):
            return True
        if ATTRIBUTE_LINE.match(text):
            j -= 1
            continue
        return False
    return False


def main(argv):
    count = "--count" in argv
    args = [a for a in argv if not a.startswith("--")]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources")
    root = os.path.normpath(root)
    missing = []
    per_module = {}
    for directory, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(directory, name)
            module = os.path.relpath(path, root).split(os.sep)[0]
            for line, text, is_documented in scan(path):
                per_module[module] = per_module.get(module, 0) + 1
                if not is_documented:
                    missing.append(f"{os.path.relpath(path)}:{line}: {text}")
    for entry in missing:
        print(entry)
    if count:
        for module in sorted(per_module):
            print(f"{module}: {per_module[module]} public declarations")
    print(f"{len(missing)} public declaration(s) without a /// doc comment")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
