#!/usr/bin/env bash
# README main job: set up, build everything, compile the quick-start Loom pipeline with its C++
# worker for the NPU (-target xdna), run it with hrx-run on the host reference device and check
# the result against a CPU calculation. Says plainly which part is missing if one is.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${HRX_BUILD_DIR:-$root/build}
HRX_BUILD_DIR=$build bash "$root/scripts/build.sh"
bin=$build/bin
work=$build/quickstart
mkdir -p "$work"
packets=4
echo "== hrxcc -target xdna pipeline.loom worker.cpp"
if ! "$bin/hrxcc" -target xdna --config=quickstart.packets=$packets \
     "$root/examples/quickstart/pipeline.loom" "$root/examples/quickstart/worker.cpp" \
     -o "$work/quickstart.xdna"; then
  echo "quickstart: NOT THERE YET: hrxcc cannot compile the quick-start pipeline for xdna (see the error above and the open issues)." >&2
  exit 1
fi
"$bin/hrx" inspect "$work/quickstart.xdna" || true
python3 - "$work" "$packets" <<'PY'
import struct, sys
work, packets = sys.argv[1], int(sys.argv[2])
values = [(i * 7919) % 100003 - 50000 for i in range(packets * 1024)]
open(f"{work}/input.bin", "wb").write(struct.pack(f"<{len(values)}i", *values))
open(f"{work}/expected.bin", "wb").write(struct.pack(f"<{len(values)}i", *[2 * v for v in values]))
PY
echo "== hrx-run --device=host quickstart.xdna"
n=$((packets * 1024))
if ! "$bin/hrx-run" --device=host "$work/quickstart.xdna" --entry=double_stream \
     --input="${n}xi32=@$work/input.bin" --input="${n}xi32=0" --output="@$work/output.bin" \
     --expected_output="${n}xi32=@$work/expected.bin" > "$work/run.log"; then
  cat "$work/run.log"
  echo "quickstart: FAILED: hrx-run did not produce the CPU oracle's result." >&2
  exit 1
fi
tail -n 1 "$work/run.log"
echo "quickstart: OK: $n values doubled on the host reference device match the CPU oracle."
