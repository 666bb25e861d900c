#!/bin/sh
# The viewer's CI test (ctest: viewer_test): the viewer renders three frames
# under Xvfb with validation on (its own instance: Khronos validation with
# synchronization validation; any message fails), saves the presented picture,
# and viewer_check compares it with the same picture computed on the CPU.
# Skipped (exit 77, which ctest reports as skipped, not passed) only when
# xvfb-run is missing.
# With KILN_CLI, a third case shows a TIFF file the CLI writes.
#   test_viewer.sh VIEWER VIEWER_CHECK OUTPUT_DIR [KILN_CLI]
set -u
viewer=$1
check=$2
out=$3
cli=${4:-}
if ! command -v xvfb-run > /dev/null 2>&1; then
  echo "SKIPPED: xvfb-run is not installed, so the viewer has no display to open its window on"
  echo "         (Debian: apt-get install xvfb xauth; scripts/bootstrap installs them)"
  exit 77
fi
mkdir -p "$out"
status=0
# Each case: the options both programs take; the window is sized so that the
# grid shows the 256 x 256 sky at 1:1 (2 x (256 + 2) pixels, plus the 320-pixel panel).
run_case() {
  name=$1
  shift
  shot="$out/$name.png"
  rm -f "$shot" "$out/$name-cpu.png" "$out/$name-diff.png"
  echo "== $name: viewer --frames 3 --screenshot $shot $*"
  KILN_VALIDATION=1 xvfb-run -a -s "-screen 0 1280x1024x24" \
    "$viewer" --frames 3 --screenshot "$shot" --no-vsync --width 836 --height 516 "$@" > "$out/$name.log" 2>&1
  code=$?
  cat "$out/$name.log"
  if [ $code -ne 0 ]; then
    echo "FAILED: the viewer exited with status $code"
    status=1
    return
  fi
  if ! grep -q "validation (Khronos, with synchronization validation): 0 messages" "$out/$name.log"; then
    echo "FAILED: the viewer did not report 0 validation messages"
    status=1
    return
  fi
  sources=$(sed -n 's/.*the last: \([0-9]*\) sources.*/\1/p' "$out/$name.log")
  if [ -z "$sources" ]; then
    echo "FAILED: the viewer reported no source count"
    status=1
    return
  fi
  # Tolerance: 2 levels of 255 per channel (the blur's float32 sums and the
  # stretch's logarithm round differently on the GPU), and at most 0.1% of
  # the image area's pixels beyond it.
  "$check" --screenshot "$shot" --tolerance 2 --max-fraction 0.001 --sources "$sources" "$@" || status=1
}
run_case viewer-grid --size 256 --sigma 3
run_case viewer-labels --size 256 --sigma 1.5 --view labels --zoom 1 --pan 40 -30 --connectivity 8
if [ -n "$cli" ]; then
  # A file instead of the built-in sky: the sky written as a float32 TIFF.
  "$cli" synthetic-sky --size 256 --seed 7 -o "$out/sky.tif" || status=1
  run_case viewer-tiff "$out/sky.tif" --sigma 2
fi
exit $status
