"""validate_report_schema.py SCHEMA REPORT...: validates each report against the JSON Schema
and prints "valid: REPORT" or the first violation (exit 1).

Implements the subset of JSON Schema 2020-12 that docs/reports.schema.json uses (type,
required, properties, additionalProperties, items, enum, const, pattern, minimum, maximum,
minLength, local $ref), so the test needs only the standard library."""
import json
import re
import sys

TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def check(value, schema, root, path):
    if "$ref" in schema:
        target = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target[part]
        return check(value, target, root, path)
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[k](value) for k in kinds):
            return f"{path}: {value!r} is not of type {', '.join(repr(k) for k in kinds)}"
    if "const" in schema and value != schema["const"]:
        return f"{path}: {value!r} is not {schema['const']!r}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{path}: {value!r} is not one of {schema['enum']!r}"
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            return f"{path}: {value!r} is too short"
        if "pattern" in schema and not re.search(schema["pattern"], value):
            return f"{path}: {value!r} does not match {schema['pattern']!r}"
    if TYPES["number"](value):
        if "minimum" in schema and value < schema["minimum"]:
            return f"{path}: {value!r} is less than {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"{path}: {value!r} is greater than {schema['maximum']}"
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                return f"{path}: {key!r} is a required property"
        properties = schema.get("properties", {})
        for key, item in value.items():
            if key in properties:
                sub = properties[key]
            elif schema.get("additionalProperties") is False:
                return f"{path}: additional property {key!r} is not allowed"
            elif isinstance(schema.get("additionalProperties"), dict):
                sub = schema["additionalProperties"]
            else:
                continue
            problem = check(item, sub, root, f"{path}/{key}")
            if problem:
                return problem
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            problem = check(item, schema["items"], root, f"{path}/{index}")
            if problem:
                return problem
    return None


schema = json.load(open(sys.argv[1]))
failed = False
for report in sys.argv[2:]:
    problem = check(json.load(open(report)), schema, schema, "")
    if problem:
        print("invalid:", report, problem)
        failed = True
    else:
        print("valid:", report)
sys.exit(1 if failed else 0)
