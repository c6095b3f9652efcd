#!/usr/bin/env python3
"""Compiles the README's Swift from outside the package, as a host app would.

Each ```swift block of README.md says which file of a host package it is: the manifest starts
with `// swift-tools-version`, every other block with `// Sources/<Target>/<File>.swift`, or
`// Sources/<Target>/<File>.swift, continued` to append to a file an earlier block started.

Default (CI, a few seconds; run after `swift build`): type-checks the host's manifest against
PackageDescription, checks that every product it names is a library of this package, and
type-checks the host's Swift files against the modules `swift build` made (a client's view:
`package` declarations are invisible), warnings as errors.

--build: does what the README tells a newcomer instead (a few minutes): a scratch package in a
temporary folder next to a `swift-mediation` link to this repository, the README's files, the
configuration copied into it, `swift build`, then the program run from there.

Usage: .ci/check-readme-snippets.py [--build] [--keep]
  --keep  leave the scratch folder (its path is printed)
Exit status: 0 when everything compiles (and, with --build, runs with exit 0), 1 otherwise.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
ORIGINS = {}  # host file -> the README lines its blocks start at
FILE_LINE = re.compile(r"^// (Sources/[A-Za-z0-9_]+/[A-Za-z0-9_+]+\.swift)(, continued)?\s*$")


def blocks():
    """[(line number, text)] of README.md's ```swift blocks."""
    found, current, start = [], None, 0
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if current is None and line.strip() == "```swift":
                current, start = [], number + 1
            elif current is not None and line.strip() == "```":
                found.append((start, "".join(current)))
                current = None
            elif current is not None:
                current.append(line)
    return found


def host_files():
    """{relative path: text} of the host package the README's blocks make, or exits with 1."""
    files, problems = {}, []
    for line, text in blocks():
        first = text.split("\n", 1)[0]
        if first.startswith("// swift-tools-version"):
            path, continued = "Package.swift", False
        else:
            match = FILE_LINE.match(first)
            if not match:
                problems.append(f"README.md:{line}: a Swift block must start with `// swift-tools-version` "
                                f"or `// Sources/<Target>/<File>.swift[, continued]`, found {first!r}")
                continue
            path, continued = match.group(1), bool(match.group(2))
        if continued and path not in files:
            problems.append(f"README.md:{line}: {path} is continued before a block starts it")
        elif not continued and path in files:
            problems.append(f"README.md:{line}: {path} is started twice (say `, continued`)")
        files[path] = files.get(path, "") + text
        ORIGINS.setdefault(path, []).append(line)
    if "Package.swift" not in files:
        problems.append("README.md: no Swift block is the host's Package.swift")
    for problem in problems:
        print(problem)
    if problems:
        sys.exit(1)
    return files


def run(command, cwd, quiet=False):
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0 or not quiet:
        sys.stdout.write(result.stdout + result.stderr)
    return result.returncode


def typecheck(files):
    """The quick check: manifest, product names, and the Swift files against the built modules."""
    ok = True
    with open(os.path.join(ROOT, "Package.swift"), encoding="utf-8") as handle:
        libraries = set(re.findall(r'\.library\(name:\s*"([^"]+)"', handle.read()))
    for product in re.findall(r'\.product\(name:\s*"([^"]+)"', files["Package.swift"]):
        if product not in libraries:
            print(f"README.md: the host's Package.swift names a product {product!r} this package does not have "
                  f"(its libraries: {', '.join(sorted(libraries))})")
            ok = False
    swiftc = shutil.which("swiftc")
    if swiftc is None:
        print("check-readme-snippets: swiftc is not on PATH")
        return False
    bin_path = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    modules = os.path.join(bin_path, "Modules")
    if not os.path.isdir(modules):
        modules = bin_path
    if not os.path.exists(os.path.join(modules, "Mediation.swiftmodule")):
        print(f"check-readme-snippets: no Mediation.swiftmodule in {modules}: run `swift build` first")
        return False
    manifest_api = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(swiftc))), "lib", "swift", "pm", "ManifestAPI")
    with tempfile.TemporaryDirectory(prefix="readme-snippets-") as scratch:
        for path, text in files.items():
            target = os.path.join(scratch, path)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(text)
        if os.path.isdir(manifest_api):
            if run([swiftc, "-typecheck", "-swift-version", "6", "-I", manifest_api, "-package-description-version", "6.0",
                    "Package.swift"], scratch, quiet=True) != 0:
                ok = False
        else:
            print(f"check-readme-snippets: note: no PackageDescription in {manifest_api}; the manifest is not type-checked")
        targets = sorted({path.split("/")[1] for path in files if path.startswith("Sources/")})
        for target in targets:
            sources = sorted(path for path in files if path.startswith(f"Sources/{target}/"))
            command = [swiftc, "-typecheck", "-swift-version", "6", "-warnings-as-errors", "-module-name", target, "-I", modules]
            for system_library in ("CCrypto", "CCurl"):
                modulemap = os.path.join(ROOT, "Sources", system_library, "module.modulemap")
                if sys.platform.startswith("linux") and os.path.exists(modulemap):
                    command += ["-Xcc", f"-fmodule-map-file={modulemap}"]
            if run(command + sources, scratch, quiet=True) != 0:
                for path in sources:
                    print(f"  ({path} is README.md's block(s) from line {', '.join(map(str, ORIGINS[path]))})")
                ok = False
            else:
                print(f"  {target}: {', '.join(sources)} type-check against the package's modules")
    return ok


def build(files, keep):
    """The newcomer's way: a scratch package next to a `swift-mediation` link, built and run."""
    scratch = tempfile.mkdtemp(prefix="readme-host-")
    try:
        os.symlink(ROOT, os.path.join(scratch, "swift-mediation"))
        host = os.path.join(scratch, "host")
        for path, text in files.items():
            target = os.path.join(host, path)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(text)
        os.makedirs(os.path.join(host, "Config"), exist_ok=True)
        shutil.copy(os.path.join(ROOT, "Config", "mediation.json"), os.path.join(host, "Config"))
        targets = sorted({path.split("/")[1] for path in files if path.startswith("Sources/")})
        print(f"==> swift build in {host}")
        if run(["swift", "build"], host, quiet=True) != 0:
            return False
        ok = True
        for target in targets:
            print(f"==> swift run {target}")
            if run(["swift", "run", "-q", target], host) != 0:
                ok = False
        return ok
    finally:
        if keep:
            print(f"scratch package kept in {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def main(argv):
    unknown = [a for a in argv if a not in ("--build", "--keep")]
    if unknown:
        print(f"check-readme-snippets: unknown argument {unknown[0]!r}", file=sys.stderr)
        return 2
    files = host_files()
    ok = build(files, "--keep" in argv) if "--build" in argv else typecheck(files)
    print("README snippets: ok" if ok else "README snippets: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
