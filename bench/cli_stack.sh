#!/bin/sh
# Times `kiln integrate-azimuthal` end to end on a synthetic bitshuffle-LZ4
# Eiger 4M stack (2162 x 2068 uint32, kiln-bench's az-file stack: 8 distinct
# Poisson powder frames repeated) read from an HDF5 file in the page cache,
# written to a .npy of 1000-bin profiles. kiln-bench's az-file row times the
# same run through the library (integrate_stack) first and leaves the file.
#
#   bench/cli_stack.sh [BUILD_DIR [FRAMES [BATCH]]]    (defaults: build 10000 32)
#
# The stack takes about FRAMES x 1.3 MB in $TMPDIR (default /tmp); it is
# removed at the end.
set -eu
build=${1:-build}
frames=${2:-10000}
batch=${3:-32}
tmp=${TMPDIR:-/tmp}
stack=$tmp/kiln_bench_stack_2162x2068_$frames.h5
KILN_BENCH_FILE_FRAMES=$frames KILN_BENCH_KEEP_STACK=1 "$build/bench/kiln-bench" --filter az-file --repeat 1
cat "$stack" >/dev/null  # in the page cache
# The geometry and corrections of kiln-bench's azimuthal workloads.
"$build/src/kiln" integrate-azimuthal "$stack" --pixel 75e-6 --dist 0.1 --poni1 0.0826965 --poni2 0.074448 \
    --wavelength 1e-10 --bins 1000 --solid-angle --polarization 0.99 --dummy 4294967295 --batch "$batch" \
    -v -o "$tmp/kiln_cli_profiles.npy"
rm -f "$stack" "$tmp/kiln_cli_profiles.npy"
