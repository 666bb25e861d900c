"""Frames/s per configuration from a scale run's rates.txt (kiln --json lines):
the run's rate, and the pipeline's (frames over the run's seconds less its
index and set-up stages), with the stage times per device thread."""
import json
import re
import sys

for path in sys.argv[1:]:
    rows = {}
    for line in open(path):
        m = re.match(r"(.*?) rc=0: (\{.*\})", line)
        if not m:
            continue
        label = re.sub(r" run \d", "", m.group(1))
        j = json.loads(m.group(2))
        st = j["stages"]
        pipeline = j["seconds"] - st["index"] - st["setup"]
        rows.setdefault(label, []).append((j, pipeline))
    print(path)
    for label, runs in rows.items():
        fps = " ".join("%.0f" % j["frames_per_second"] for j, _ in runs)
        pipe = " ".join("%.0f" % (j["frames"] / p) for j, p in runs)
        setup = " ".join("%.2f" % j["stages"]["setup"] for j, _ in runs)
        print(f"  {label:50s} frames/s {fps:22s} pipeline {pipe:22s} setup s {setup}")
