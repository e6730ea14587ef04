#!/usr/bin/env bash
# Runs a command as on a fresh machine: with a private RUSTUP_HOME and CARGO_HOME that hold only rustup
# and the default stable toolchain — no pinned nightly, no rust-src, no llvm-tools, no cached crates.
# rustup-init is this machine's rustup binary under that name. FRESH_HOME keeps the homes (default: a
# new temporary directory each time, removed when the command ends). Example: bash scripts/fresh-machine.sh cargo test
set -euo pipefail
command -v rustup >/dev/null || { echo "fresh-machine.sh: rustup is needed to make the fresh home" >&2; exit 2; }
home=${FRESH_HOME:-$(mktemp -d)}
mkdir -p "$home"
export RUSTUP_HOME="$home/rustup" CARGO_HOME="$home/cargo"
if [ ! -x "$CARGO_HOME/bin/cargo" ]; then
  cp "$(command -v rustup)" "$home/rustup-init"
  "$home/rustup-init" -y --no-modify-path --profile minimal --default-toolchain stable 2>&1 | tail -2
fi
export PATH="$CARGO_HOME/bin:$PATH"
unset RUSTUP_TOOLCHAIN RUSTC CARGO
echo "fresh-machine.sh: RUSTUP_HOME=$RUSTUP_HOME holds: $(rustup toolchain list | tr '\n' ' ')"
if [ -n "${FRESH_HOME:-}" ]; then
  exec "$@"
fi
# A temporary home (1.6 GB with the device toolchain) is removed when the command ends.
status=0
"$@" || status=$?
rm -rf "$home"
exit $status
