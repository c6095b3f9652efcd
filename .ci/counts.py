#!/usr/bin/env python3
"""Prints the project's size figures and checks them against their targets.

Figures: the public types of each module in Sources/ (top-level and nested ones, the deepest
nesting), the lines of Sources/ (per module and in all), and the README's size in bytes.

A type counts when it is declared `public` or `open` (a `class`, `struct`, `enum`, `protocol`,
`actor` or `typealias`), or without an access modifier in a `public extension`, and every type
it is nested in is public too (a public type inside a `package` one is not on the surface).
Nested types count whether they are written inside their parent or in `extension Parent {
public struct Child {} }`. Types declared on both sides of an `#if` count once. The nesting
depth of `A` is 0, of `A.B` 1, of `A.B.C` 2.

Usage: .ci/counts.py [--enforce-lines] [--list] [--max-readme-bytes N] [--max-types MODULE=N]...
                     [--max-nesting N] [--max-source-lines N] [ROOT]
  ROOT                 the repository (default: the directory above .ci/)
  --enforce-lines      also fail (exit 1) when the line count misses its target; without it
                       that target is reported only
  --list               also print every counted public type, by module
  --max-readme-bytes   the README's limit (default 25600), always enforced
  --max-types M=N      a module's limit of public types, nested included (defaults below),
                       always enforced
  --max-nesting N      the deepest nesting allowed (default 2), always enforced
  --max-source-lines N the Swift lines of Sources/ aimed at (default 33300)
Exit status: 0 when every enforced target is met, 1 otherwise, 2 for a usage error.
"""

import importlib.util
import os
import re
import sys

README_BYTES = 25_600
TYPE_TARGETS = {"Mediation": 70, "Adapters": 15}
NESTING = 2
SOURCE_LINES = 33_300

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("check_public_docs", os.path.join(HERE, "check-public-docs.py"))
_docs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_docs)
strip_code = _docs.strip_code  # comments and string literals blanked: one lexer for both checks

ACCESS = r"(?:public|open|package|internal|fileprivate|private)(?:\([a-z]+\))?"
OTHER_MODIFIERS = r"final|indirect|nonisolated(?:\(unsafe\))?|distributed|static|class"
ATTRIBUTE = r"@[A-Za-z_][\w.]*(?:\((?:[^()]|\([^()]*\))*\))?"
HEADER = re.compile(
    rf"(?P<mods>(?:(?:{ATTRIBUTE}|{ACCESS}|{OTHER_MODIFIERS})\s+)*)"
    r"\b(?P<keyword>class|struct|enum|protocol|actor|extension)\s+(?P<name>[A-Za-z_][\w.]*)"
)
TYPEALIAS = re.compile(
    rf"(?:^|[\s;])(?P<mods>(?:(?:{ATTRIBUTE}|{ACCESS})\s+)*)typealias\s+(?P<name>[A-Za-z_]\w*)"
)
NOT_A_NAME = {"func", "var", "let", "init", "subscript", "deinit", "case", "protocol", "where"}


def access_of(modifiers):
    """`"public"`, `"restricted"` or None (no access modifier) for a list of modifier words."""
    for word in re.findall(rf"{ATTRIBUTE}|\S+", modifiers):
        if "(set)" in word or word.startswith("@"):
            continue
        base = word.split("(")[0]
        if base in ("public", "open"):
            return "public"
        if base in ("package", "internal", "fileprivate", "private"):
            return "restricted"
    return None


def declarations(code, modules):
    """Yields (qualified name, kind, access, line) for each type declared in `code`.

    `access` is "public", "restricted" or "default-public" (no modifier in a public extension);
    types inside function bodies and other code blocks are skipped.
    """
    # Each scope: (kind, qualified name or None, whether members default to public)
    scopes = [("file", None, False)]
    segment_start = 0

    def members(segment, offset):
        kind, name, default_public = scopes[-1]
        if kind == "block":
            return
        for match in TYPEALIAS.finditer(segment):
            access = access_of(match.group("mods"))
            if access is None and default_public:
                access = "default-public"
            qualified = f"{name}.{match.group('name')}" if name else match.group("name")
            yield qualified, "typealias", access, code.count("\n", 0, offset + match.start("name")) + 1

    for index, char in enumerate(code):
        if char not in "{}":
            continue
        segment = code[segment_start:index]
        yield from members(segment, segment_start)
        if char == "}":
            if len(scopes) > 1:
                scopes.pop()
            segment_start = index + 1
            continue
        kind, parent, default_public = scopes[-1]
        header = None
        for match in HEADER.finditer(segment):
            if match.group("name") not in NOT_A_NAME:
                header = match
        if kind == "block" or header is None:
            scopes.append(("block", None, False))
        else:
            keyword, name = header.group("keyword"), header.group("name")
            access = access_of(header.group("mods"))
            if keyword == "extension":
                parts = name.split(".")
                if len(parts) > 1 and parts[0] in modules:
                    parts = parts[1:]
                scopes.append(("extension", ".".join(parts), access == "public"))
            else:
                if access is None and default_public:
                    access = "default-public"
                qualified = f"{parent}.{name}" if parent else name
                yield qualified, keyword, access, code.count("\n", 0, segment_start + header.start("name")) + 1
                scopes.append(("type", qualified, False))
        segment_start = index + 1
    yield from members(code[segment_start:], segment_start)


def public_types(sources):
    """{module: {qualified name: (kind, path:line)}} of the effectively public types."""
    modules = sorted(d for d in os.listdir(sources) if os.path.isdir(os.path.join(sources, d)))
    declared = {}  # (module, name) -> (kind, access, where)
    for module in modules:
        for directory, _, files in sorted(os.walk(os.path.join(sources, module))):
            for file in sorted(files):
                if not file.endswith(".swift"):
                    continue
                path = os.path.join(directory, file)
                with open(path, encoding="utf-8") as handle:
                    code = strip_code(handle.read())
                for name, kind, access, line in declarations(code, modules):
                    where = f"{os.path.relpath(path, os.path.dirname(sources))}:{line}"
                    previous = declared.get((module, name))
                    if previous is None or (previous[1] != "public" and access == "public"):
                        declared[(module, name)] = (kind, access, where)

    by_name = {}
    for (module, name), entry in declared.items():
        by_name.setdefault(name, []).append((module, entry))

    def effective(module, name):
        entries = dict(by_name.get(name, []))
        entry = entries.get(module) or next(iter(entries.values()), None)
        if entry is None:
            return True  # a type of another package (the standard library, Foundation)
        if entry[1] not in ("public", "default-public"):
            return False
        parent = name.rsplit(".", 1)[0] if "." in name else None
        return parent is None or effective(module, parent)

    result = {module: {} for module in modules}
    for (module, name), (kind, access, where) in declared.items():
        if access in ("public", "default-public") and effective(module, name):
            result[module][name] = (kind, where)
    return result


def source_lines(sources):
    """{module: lines} over the Swift files of Sources/."""
    lines = {}
    for directory, _, files in os.walk(sources):
        for file in files:
            if not file.endswith(".swift"):
                continue
            module = os.path.relpath(directory, sources).split(os.sep)[0]
            with open(os.path.join(directory, file), "rb") as handle:
                lines[module] = lines.get(module, 0) + handle.read().count(b"\n")
    return lines


def parse(argv):
    options = {"enforce": False, "list": False, "readme": README_BYTES, "types": dict(TYPE_TARGETS),
               "nesting": NESTING, "lines": SOURCE_LINES, "root": os.path.normpath(os.path.join(HERE, ".."))}
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--enforce-lines":
            options["enforce"] = True
        elif arg == "--list":
            options["list"] = True
        elif arg in ("--max-readme-bytes", "--max-nesting", "--max-source-lines", "--max-types"):
            if not args:
                raise ValueError(f"{arg} needs a value")
            value = args.pop(0)
            if arg == "--max-types":
                module, _, number = value.partition("=")
                if not module or not re.fullmatch(r"[0-9]+", number):
                    raise ValueError(f"--max-types takes MODULE=N, found {value!r}")
                options["types"][module] = int(number)
                continue
            if not re.fullmatch(r"[0-9]+", value):
                raise ValueError(f"{arg} takes a whole number, found {value!r}")
            key = {"--max-readme-bytes": "readme", "--max-nesting": "nesting", "--max-source-lines": "lines"}[arg]
            options[key] = int(value)
        elif arg.startswith("-"):
            raise ValueError(f"unknown option {arg!r}")
        else:
            options["root"] = arg
    return options


def main(argv):
    try:
        options = parse(argv)
    except ValueError as error:
        print(f"counts.py: {error}", file=sys.stderr)
        return 2
    root = options["root"]
    sources = os.path.join(root, "Sources")
    readme = os.path.join(root, "README.md")
    if not os.path.isdir(sources) or not os.path.isfile(readme):
        print(f"counts.py: {root} has no Sources/ or README.md", file=sys.stderr)
        return 2

    failures = []

    def check(label, now, target, enforced):
        met = now <= target
        state = "met" if met else ("MISSED" if enforced else "missed (reported only)")
        print(f"  {label}: target: ≤ {target:,}, now: {now:,} ({state})")
        if not met and enforced:
            failures.append(label)

    types = public_types(sources)
    print("Public types per module (nested included):")
    deepest = (-1, "")
    for module in sorted(types, key=lambda m: (-len(types[m]), m)):
        names = types[module]
        top = sum(1 for name in names if "." not in name)
        depth = max((name.count(".") for name in names), default=0)
        print(f"  {module}: {len(names)} ({top} top-level, {len(names) - top} nested; deepest nesting {depth})")
        for name in names:
            if name.count(".") > deepest[0]:
                deepest = (name.count("."), f"{module}: {name}")
        if options["list"]:
            for name in sorted(names):
                kind, where = names[name]
                print(f"      {name} ({kind}, {where})")

    lines = source_lines(sources)
    print(f"Swift lines in Sources/: {sum(lines.values()):,} ("
          + ", ".join(f"{m} {n:,}" for m, n in sorted(lines.items(), key=lambda item: -item[1])) + ")")
    size = os.path.getsize(readme)
    print(f"README.md: {size:,} bytes")

    print("Targets:")
    check("README.md bytes", size, options["readme"], True)
    for module, target in sorted(options["types"].items()):
        check(f"{module} public types", len(types.get(module, {})), target, True)
    check(f"nesting depth (deepest: {deepest[1]})", max(deepest[0], 0), options["nesting"], True)
    check("Swift lines in Sources/", sum(lines.values()), options["lines"], options["enforce"])
    if failures:
        print("counts.py: missed: " + "; ".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
