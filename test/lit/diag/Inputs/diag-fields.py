"""Prints the fields of a JSON or SARIF diagnostics document one per line, for FileCheck."""
import json
import sys

doc = json.load(open(sys.argv[1]))
if isinstance(doc, list):
    for d in doc:
        print("json", d["code"], d["severity"], d["file"].split("/")[-1], d["line"], d["column"],
              d["end_line"], d["end_column"], json.dumps(d["params"], sort_keys=True), len(d["notes"]),
              len(d["fixits"]), d["message"])
else:
    print("sarif", doc["version"], doc["$schema"].rsplit("/", 1)[-1])
    run = doc["runs"][0]
    driver = run["tool"]["driver"]
    print("tool", driver["name"], " ".join(r["id"] for r in driver["rules"]))
    for r in run["results"]:
        region = r["locations"][0]["physicalLocation"]["region"]
        uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].split("/")[-1]
        print("result", r["ruleId"], r["level"], uri, region["startLine"], region["startColumn"],
              region["endLine"], region["endColumn"], r["message"]["text"])
