#!/usr/bin/env bash
# Builds one integration-test binary in release and prints its path: `scripts/test-exe.sh PACKAGE TEST`
# (PACKAGE empty: the workspace's default members). Used by the carry scripts.
set -euo pipefail
pkg=(); [ -n "$1" ] && pkg=(-p "$1")
cargo test --release "${pkg[@]}" --no-run --test "$2" --message-format=json 2>/dev/null | python3 -c 'import sys, json
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])' | tail -1
