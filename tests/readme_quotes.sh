#!/bin/sh
# README's "Embedding kiln" section quotes samples/embed: every line of its
# ```cpp blocks must stand, as written (indentation aside), in one of the
# sample's files, so the quotes cannot drift from the compiled, tested code.
# Usage: readme_quotes.sh README.md samples/embed. Prints each line that is
# not found, and fails; fails too when the section has no C++ block.
readme=${1:?usage: readme_quotes.sh README.md samples/embed}
dir=${2:?usage: readme_quotes.sh README.md samples/embed}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat "$dir"/*.cpp "$dir"/*.hpp | sed 's/^[[:space:]]*//' > "$tmp/sample"
awk '/^## /{inside = ($0 == "## Embedding kiln")} inside && /^```/{code = !code && ($0 == "```cpp"); next}
     inside && code' "$readme" | sed 's/^[[:space:]]*//' | grep -v '^$' > "$tmp/quoted"
if [ ! -s "$tmp/quoted" ]; then
    echo "$readme: no \`\`\`cpp block in the section \"## Embedding kiln\""
    exit 1
fi
status=0
while IFS= read -r line; do
    if ! grep -qxF -- "$line" "$tmp/sample"; then
        echo "$readme quotes a line that is in no file of $dir: $line"
        status=1
    fi
done < "$tmp/quoted"
[ $status -eq 0 ] && echo "$(wc -l < "$tmp/quoted") quoted lines, each in $dir"
exit $status
