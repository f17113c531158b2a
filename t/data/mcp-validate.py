#!/usr/bin/env python3
# Validate every tools/call result in an scx-mcp conversation against the
# outputSchema its tool declared in tools/list, with python3-jsonschema (an
# independent implementation of JSON Schema 2020-12), and check that the
# text block says the same as structuredContent.
#   mcp-validate.py OUT   (OUT: the server's stdout; tools/list has id 1)
# Prints one line per call and exits 1 on the first mismatch.
import json
import sys

import jsonschema

msgs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
tools = next(m for m in msgs if m.get("id") == 1 and "result" in m)["result"]["tools"]
schema = {t["name"]: t.get("outputSchema") for t in tools}
calls = {}
for m in msgs:
    if m.get("method") is None and isinstance(m.get("id"), int) and m["id"] >= 100:
        calls[m["id"]] = m
bad = 0
names = {}
for line in open(sys.argv[2]):
    req = json.loads(line)
    names[req["id"]] = req["params"]["name"]
for i, name in sorted(names.items()):
    r = calls.get(i, {}).get("result")
    s = schema.get(name)
    if r is None or s is None:
        print(f"not ok {name} ({i}): no result or no outputSchema")
        bad += 1
        continue
    if r.get("isError"):
        print(f"skip {name} ({i}): isError: {r['content'][0]['text'][:80]}")
        continue
    try:
        jsonschema.Draft202012Validator.check_schema(s)
        jsonschema.Draft202012Validator(s).validate(r["structuredContent"])
        if json.loads(r["content"][0]["text"]) != r["structuredContent"]:
            raise ValueError("text and structuredContent differ")
    except Exception as e:
        print(f"not ok {name} ({i}): {str(e)[:300]}")
        bad += 1
        continue
    print(f"ok {name} ({i})")
sys.exit(1 if bad else 0)
