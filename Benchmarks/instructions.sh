#!/usr/bin/env bash
# Instructions per operation, typed and plain twin, counted by valgrind's callgrind: unlike timings, the counts repeat
# for the same binary and inputs however busy the machine is. Prints a Markdown table.
#
#     ./instructions.sh            # from Benchmarks/; about three minutes
#
# Each number is the count of a run of 6,000 operations minus that of a run of 1,000, divided by 5,000 (for 100
# observers, 1,200 and 200), so set-up and start-up cancel out; the mean over six processes, whose per-process values
# follow in brackets. They differ where a process's random hash seed makes two userInfo keys share a slot (see the
# Performance article). The tool is built without debug information, which valgrind 3.19 cannot read for this package.
set -euo pipefail
cd "$(dirname "$0")"
command -v valgrind > /dev/null || { echo "needs valgrind (Debian: apt-get install valgrind)" >&2; exit 1; }

swift build -c release --product TypedNotificationsInstructions --scratch-path .build-instructions -Xswiftc -gnone \
    > /dev/null
tool=.build-instructions/release/TypedNotificationsInstructions
out=$(mktemp)
trap 'rm -f "$out"' EXIT

count() {
    valgrind --tool=callgrind --callgrind-out-file="$out" "$tool" "$@" 2>&1 | awk '/Collected/ { print $4 }'
}

# Prints "mean [per-process values]" for one scenario and side.
per_operation() {
    local total=0 values=""
    # A post to 100 observers is a hundred times the work: a fifth of the operations keeps the run as short.
    local small_ops=1000 large_ops=6000
    if [ "$1" = post-100 ]; then small_ops=200 large_ops=1200; fi
    for _ in 1 2 3 4 5 6; do
        local small large value
        small=$(count "$1" "$2" "$small_ops")
        large=$(count "$1" "$2" "$large_ops")
        value=$(((large - small) / (large_ops - small_ops)))
        values="$values $value"
        total=$((total + value))
    done
    echo "$((total / 6)) [${values# }]"
}

echo "| per operation | typed | plain twin | typed / twin |"
echo "|---|---|---|---|"
for scenario in post-0 post-1 post-10 post-100 observe-cancel; do
    typed=$(per_operation "$scenario" typed)
    twin=$(per_operation "$scenario" twin)
    ratio=$(awk -v t="${typed%% *}" -v p="${twin%% *}" 'BEGIN { printf "%.2f", t / p }')
    case $scenario in
        post-0) title="post, 0 observers" ;;
        post-1) title="post, 1 observer" ;;
        post-10) title="post, 10 observers" ;;
        post-100) title="post, 100 observers" ;;
        observe-cancel) title="observe then cancel, 1 long-lived observer" ;;
    esac
    echo "| $title | $typed | $twin | $ratio |"
done
