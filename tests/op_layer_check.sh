#!/bin/sh
# The ops' boundary (engine/ops/), checked as a test: ops reach their context
# through detail::OpServices (graph/op_services.hpp) alone. No file there may
# include another header of the graph layer than op_services.hpp and
# node.hpp (not the scheduler, not the context behind it), nor mention
# submission serials, fences, waits or syncs, nor call state(): what an op
# needs of the scheduling (an array's version, the end of the work that uses
# it, what some work cost) the facade offers in its own terms.
# Usage: op_layer_check.sh DIR (engine/ops). Prints FILE:LINE: TEXT for each
# offending line and fails; prints nothing and passes when there is none.
dir=${1:?usage: op_layer_check.sh engine/ops}
files=$(ls "$dir"/*.cpp "$dir"/*.hpp 2>/dev/null)
[ -n "$files" ] || { echo "op_layer_check: no sources in $dir" >&2; exit 2; }
status=0
# shellcheck disable=SC2086  # the file names are words
if grep -nHiE 'serial|fence|\bwait|\bsync[[:space:]]*\(|\bstate\(\)' $files; then
    echo "op_layer_check: ops must not deal in serials, fences, waits, syncs or the context's state(); ask detail::OpServices" >&2
    status=1
fi
# shellcheck disable=SC2086
if grep -nHE '#[[:space:]]*include[[:space:]]*"graph/' $files | grep -vE '"graph/(op_services|node)\.hpp"'; then
    echo "op_layer_check: ops include no graph header but graph/op_services.hpp and graph/node.hpp" >&2
    status=1
fi
exit $status
