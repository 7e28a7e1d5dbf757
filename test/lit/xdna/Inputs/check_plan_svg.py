"""check_plan_svg.py PLAN.svg PLAN.txt: the golden structure of `hrx inspect --plan-svg` against
the plan's text form (`hrx inspect --print-plan`): the SVG parses as XML, and for each plan it has
one worker group per worker (with the worker's entry name), one channel group per channel and
one tile group per tile of the partition (columns x 6 rows)."""
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
svg_path, plan_path = sys.argv[1:3]
root = ET.parse(svg_path).getroot()
plans = {}
current = None
for line in open(plan_path):
    header = re.match(r"array @(\S+) .*columns=(\d+) .*workers=(\d+) .*channels=(\d+)", line)
    if header:
        current = header.group(1)
        plans[current] = {"columns": int(header.group(2)), "workers": int(header.group(3)),
                          "channels": int(header.group(4)), "entries": []}
    worker = re.match(r"\s+worker index=\d+ .*entry=@(\S+)", line)
    if worker:
        plans[current]["entries"].append(worker.group(1))

panels = [g for g in root.iter(SVG + "g") if g.get("class") == "plan"]
if sorted(p.get("data-entry") for p in panels) != sorted(plans):
    sys.exit("plans in the SVG %s, in the plan text %s" % ([p.get("data-entry") for p in panels], sorted(plans)))
for panel in panels:
    name = panel.get("data-entry")
    expected = plans[name]
    groups = lambda cls: [g for g in panel.iter(SVG + "g") if g.get("class") == cls]
    workers, channels, tiles = groups("worker"), groups("channel"), groups("tile")
    entries = [w.get("data-entry") for w in workers]
    checks = [("workers", len(workers), expected["workers"]), ("channels", len(channels), expected["channels"]),
              ("tiles", len(tiles), expected["columns"] * 6), ("worker entries", entries, expected["entries"])]
    for what, found, wanted in checks:
        if found != wanted:
            sys.exit("plan %s: %s: SVG has %s, the plan %s" % (name, what, found, wanted))
    for channel in channels:
        if channel.find(SVG + "path") is None or channel.find(SVG + "text") is None:
            sys.exit("plan %s: channel %s has no path or label" % (name, channel.get("data-channel")))
    print("plan %s: %d workers (%s), %d channels, %d tiles" % (name, len(workers), " ".join(entries), len(channels),
                                                              len(tiles)))
