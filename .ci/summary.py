#!/usr/bin/env python3
"""Prints one closing line, 'N passed, N failed, N skipped', over meson test logs."""
import json
import sys

counts = {"passed": 0, "failed": 0, "skipped": 0}
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as log:
        for line in log:
            result = json.loads(line).get("result")
            if result in ("OK", "EXPECTEDFAIL"):
                counts["passed"] += 1
            elif result == "SKIP":
                counts["skipped"] += 1
            else:
                counts["failed"] += 1
print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
sys.exit(1 if counts["failed"] else 0)
