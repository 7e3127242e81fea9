#!/usr/bin/env bash
# Builds the DocC documentation of the TypedNotifications module from its symbol graphs, with warnings as errors.
#
#     bash Docs/build-docs.sh            # from the repository root
#
# Writes only into .build-docs/ (git-ignored):
#   .build-docs/symbol-graph-build/      a scratch build of the TypedNotifications target, remade on every run
#   .build-docs/symbol-graphs/           its symbol graphs
#   .build-docs/catalog/                 a copy of the catalog, made only on toolchains that need it (see below)
#   .build-docs/TypedNotifications.doccarchive
#   .build-docs/testing-symbol-graph-build/, .build-docs/testing-symbol-graphs/, and
#   .build-docs/TypedNotificationsTesting.doccarchive: the same for the testing kit
#   .build-docs/system-symbol-graph-build/, .build-docs/system-symbol-graphs/, and
#   .build-docs/TypedSystemNotifications.doccarchive: the same for the system notifications, with their catalog
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build-docs
build="$scratch/symbol-graph-build"
graphs="$scratch/symbol-graphs"
catalog=Docs/TypedNotifications.docc
output="$scratch/TypedNotifications.doccarchive"

# A build of its own, remade each time, so that the symbol graphs always come from a fresh compile and the build
# flags never invalidate the builds of `swift build` or `swift test` under other scratch paths.
rm -rf "$build" "$graphs" "$scratch/catalog" "$output"
mkdir -p "$graphs"

echo "=== Symbol graphs"
swift build --scratch-path "$build" --target TypedNotifications \
    -Xswiftc -emit-symbol-graph \
    -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public \
    -Xswiftc -emit-extension-block-symbols

# Only this module is documented: keep its own graph and the graphs of its extensions to other modules.
find "$graphs" -name '*.symbols.json' ! -name 'TypedNotifications.symbols.json' \
    ! -name 'TypedNotifications@*.symbols.json' -delete

# The catalog and the doc comments link to the package's NotificationCenter methods as
# ``Foundation/NotificationCenter/…``, which is where they are on Apple platforms. Since Swift 6.3 on Linux,
# NotificationCenter is declared in FoundationEssentials (Foundation re-exports it), so its extension's pages live
# under FoundationEssentials there. On such a toolchain, point those links at FoundationEssentials, in a copy of the
# catalog and in the symbol graphs' doc comments; nothing else changes.
if [[ -f "$graphs/TypedNotifications@FoundationEssentials.symbols.json" ]]; then
    relink='s#``Foundation/NotificationCenter\([/`]\)#``FoundationEssentials/NotificationCenter\1#g'
    mkdir -p "$scratch/catalog"
    cp -R "$catalog" "$scratch/catalog/"
    catalog="$scratch/catalog/TypedNotifications.docc"
    find "$catalog" -name '*.md' -exec sed -i.orig "$relink" {} +
    find "$graphs" -name '*.symbols.json' -exec sed -i.orig "$relink" {} +
    find "$catalog" "$graphs" -name '*.orig' -delete
fi

# `docc` ships with Swift toolchains; Xcode runs it through `xcrun`.
if command -v docc > /dev/null; then docc=(docc); else docc=(xcrun docc); fi

echo "=== DocC"
# Catalog diagnostics name files relative to the catalog, so they read the same for the copy; lines are unchanged.
"${docc[@]}" convert "$catalog" \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name TypedNotifications \
    --fallback-bundle-identifier org.typednotifications.TypedNotifications \
    --output-path "$output" \
    --warnings-as-errors

echo "=== Documentation archive: $output"

# The testing kit's doc comments, built the same way (symbol graphs only, no catalog), so that a broken link or
# symbol in them fails too. Links to the main module's symbols are written as code, not as symbol links: DocC does not
# resolve links across modules.
testing_build="$scratch/testing-symbol-graph-build"
testing_graphs="$scratch/testing-symbol-graphs"
testing_output="$scratch/TypedNotificationsTesting.doccarchive"
rm -rf "$testing_build" "$testing_graphs" "$testing_output"
mkdir -p "$testing_graphs"
echo "=== Testing kit: symbol graphs"
swift build --scratch-path "$testing_build" --target TypedNotificationsTesting \
    -Xswiftc -emit-symbol-graph \
    -Xswiftc -emit-symbol-graph-dir -Xswiftc "$testing_graphs" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public \
    -Xswiftc -emit-extension-block-symbols
find "$testing_graphs" -name '*.symbols.json' ! -name 'TypedNotificationsTesting.symbols.json' \
    ! -name 'TypedNotificationsTesting@*.symbols.json' -delete
echo "=== Testing kit: DocC"
"${docc[@]}" convert \
    --additional-symbol-graph-dir "$testing_graphs" \
    --fallback-display-name TypedNotificationsTesting \
    --fallback-bundle-identifier org.typednotifications.TypedNotificationsTesting \
    --output-path "$testing_output" \
    --warnings-as-errors
echo "=== Documentation archive: $testing_output"

# The system notifications' doc comments and their catalog (Docs/TypedSystemNotifications.docc), built the same way.
# As for the testing kit, the main module's symbols are written as code, not as symbol links.
system_build="$scratch/system-symbol-graph-build"
system_graphs="$scratch/system-symbol-graphs"
system_output="$scratch/TypedSystemNotifications.doccarchive"
rm -rf "$system_build" "$system_graphs" "$system_output"
mkdir -p "$system_graphs"
echo "=== System notifications: symbol graphs"
swift build --scratch-path "$system_build" --target TypedSystemNotifications \
    -Xswiftc -emit-symbol-graph \
    -Xswiftc -emit-symbol-graph-dir -Xswiftc "$system_graphs" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public \
    -Xswiftc -emit-extension-block-symbols
find "$system_graphs" -name '*.symbols.json' ! -name 'TypedSystemNotifications.symbols.json' \
    ! -name 'TypedSystemNotifications@*.symbols.json' -delete
echo "=== System notifications: DocC"
"${docc[@]}" convert Docs/TypedSystemNotifications.docc \
    --additional-symbol-graph-dir "$system_graphs" \
    --fallback-display-name TypedSystemNotifications \
    --fallback-bundle-identifier org.typednotifications.TypedSystemNotifications \
    --output-path "$system_output" \
    --warnings-as-errors
echo "=== Documentation archive: $system_output"
