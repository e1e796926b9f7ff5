#!/usr/bin/python3
"""Print the side-by-side diff the web UI draws, from its JSON endpoint (for the demo):

    scripts/ui_diff.py http://HOST:PORT/ui/api/subjects/SUBJECT/diff?from=A&to=B
"""
import json
import sys
import urllib.request

answer = json.load(urllib.request.urlopen(sys.argv[1]))
print(f"{answer['subject']}: version {answer['from']} | version {answer['to']}")
def shown(v):
    return "(none)" if v is None else v


for c in answer["diff"]["changes"]:
    print(f"  {c['path']:28} {c['kind']:14} {shown(c['from'])} -> {shown(c['to'])}  "
          f"[{c['severity']}]")
verdict = answer["compatibility"]
state = "compatible" if verdict and verdict["compatible"] else "incompatible"
print(f"verdict in the subject's mode ({answer['mode']}): {state}")
