#!/usr/bin/env python3
"""Validates TOML files against a JSON Schema with the `jsonschema` package (an independent
validator: none of simreel's own code). Usage: schema_check.py SCHEMA.json FILE.toml...
Prints one JSON object: each file's path mapped to its problems (an empty list when valid)."""
import json
import sys
import tomllib

import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
validator = jsonschema.Draft7Validator(schema)
out = {}
for path in sys.argv[2:]:
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        out[path] = [f"not TOML: {e}"]
        continue
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    out[path] = [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {jsonschema.exceptions.best_match([e]).message[:300]}" for e in errors]
print(json.dumps(out))
