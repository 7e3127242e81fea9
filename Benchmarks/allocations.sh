#!/usr/bin/env bash
# Heap allocations per post, typed and plain twin, counted by valgrind's DHAT: blocks and bytes allocated (freed or
# not), exact and independent of how busy the machine is. Prints a Markdown table.
#
#     ./allocations.sh             # from Benchmarks/; about a minute
#
# Each number is the total of a run of 6,000 posts minus that of a run of 1,000, divided by 5,000, so that set-up and
# start-up cancel out. Uses the same tool as instructions.sh.
set -euo pipefail
cd "$(dirname "$0")"
command -v valgrind > /dev/null || { echo "needs valgrind (Debian: apt-get install valgrind)" >&2; exit 1; }

swift build -c release --product TypedNotificationsInstructions --scratch-path .build-instructions -Xswiftc -gnone \
    > /dev/null
tool=.build-instructions/release/TypedNotificationsInstructions

# Prints "<bytes> <blocks>" allocated by one run.
totals() {
    valgrind --tool=dhat --dhat-out-file=/dev/null "$tool" "$@" 2>&1 \
        | awk '/Total:/ { gsub(",", ""); print $3, $6; exit }'
}

per_post() {
    local small large
    read -r small_bytes small_blocks <<< "$(totals "$1" "$2" 1000)"
    read -r large_bytes large_blocks <<< "$(totals "$1" "$2" 6000)"
    echo "$(((large_bytes - small_bytes) / 5000)) B in $(((large_blocks - small_blocks) / 5000)) blocks"
}

echo "| per post | typed | plain twin |"
echo "|---|---|---|"
for scenario in post-0 post-1 post-10; do
    echo "| ${scenario/post-/post, } observers | $(per_post "$scenario" typed) | $(per_post "$scenario" twin) |"
done
