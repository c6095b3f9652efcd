#!/usr/bin/env python3
"""Validates configuration files against Config/mediation.schema.json (JSON Schema 2020-12).

Usage: check_schema.py SCHEMA DIRECTORY
Prints one line per *.json file of DIRECTORY, sorted by name: "valid NAME" or
"invalid NAME: MESSAGE" (the first error, on one line). A file Python's json module cannot
parse is "invalid NAME: unparsable: ...". Exits 0 when every file was checked, 2 when the
jsonschema package is missing (the Swift test reports that as a failure, with this message).
"""
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    sys.stderr.write("check_schema.py: the Python package jsonschema is missing; install it with: python3 -m pip install jsonschema\n")
    sys.exit(2)


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 64
    with open(sys.argv[1], encoding="utf-8") as handle:
        schema = json.load(handle)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    directory = sys.argv[2]
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(directory, name), encoding="utf-8") as handle:
                document = json.load(handle)
        except (ValueError, UnicodeDecodeError) as error:
            print("invalid %s: unparsable: %s" % (name, str(error).replace("\n", " ")[:200]))
            continue
        error = jsonschema.exceptions.best_match(validator.iter_errors(document))
        if error is None:
            print("valid %s" % name)
        else:
            path = "/".join(str(part) for part in error.absolute_path)
            print("invalid %s: %s: %s" % (name, path, error.message.replace("\n", " ")[:200]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
