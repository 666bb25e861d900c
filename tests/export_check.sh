#!/bin/sh
# What libkiln.so exports, checked as a test: kiln's code is compiled with
# hidden visibility, and each public header (engine/include/kiln, reference/
# too) makes what it declares default-visible, so the CLI, the samples and
# applications can link it. Every header but kiln.hpp (includes alone) must
# open `#pragma GCC visibility push(default)` on the line before its first
# namespace, after its last #include, and end with `#pragma GCC visibility
# pop`. A header without them would declare functions the library hides.
# Usage: export_check.sh DIR (engine/include/kiln). Prints FILE: what is
# wrong for each header that differs, and fails.
dir=${1:?usage: export_check.sh engine/include/kiln}
status=0
for f in $(find "$dir" -name '*.hpp' ! -path "$dir/kiln.hpp" | sort); do
    first=$(grep -n '^namespace' "$f" | head -1 | cut -d: -f1)
    if [ -z "$first" ]; then
        echo "$f: no namespace"; status=1; continue
    fi
    if ! sed -n "$((first - 1))p" "$f" | grep -q '^#pragma GCC visibility push(default)'; then
        echo "$f: line $((first - 1)) (before the first namespace) is not #pragma GCC visibility push(default)"; status=1
    fi
    if awk -v n="$first" 'NR > n && /^#[[:space:]]*include/' "$f" | grep -q .; then
        echo "$f: an #include after the first namespace, inside the exported region"; status=1
    fi
    if [ "$(tail -1 "$f")" != "#pragma GCC visibility pop" ]; then
        echo "$f: the last line is not #pragma GCC visibility pop"; status=1
    fi
done
[ $status -eq 0 ] || echo "export_check: every public header exports what it declares (docs/ARCHITECTURE.md, The library)" >&2
exit $status
