#!/usr/bin/env bash
# `npm run lock`: rewrites package-lock.json from package.json so that it records every
# platform's optional builds (@next/swc-*, @tailwindcss/oxide-*, lightningcss-*, @esbuild/*),
# then checks it with scripts/check-lock.mjs. Run it after adding or changing a dependency.
#
# Why a separate folder: npm writes the lock from the installed node_modules when there is one,
# and an entry that is missing there (another platform's build) can stay missing in the lock
# (npm/cli#4828, #8320). In an empty folder npm works from package.json and the lock alone.
# The in-place update keeps every locked version; only when it still leaves gaps is the tree
# resolved afresh (versions may then move within package.json's ranges: review the diff).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cp "$root/package.json" "$tmp/"
[ -f "$root/package-lock.json" ] && cp "$root/package-lock.json" "$tmp/"

npm_lock() {
  (cd "$tmp" && npm install --package-lock-only --ignore-scripts --no-audit --no-fund --loglevel=error)
  node "$root/scripts/check-lock.mjs" --record-unpublished "$tmp/package-lock.json"
}

npm_lock
if ! node "$root/scripts/check-lock.mjs" "$tmp/package-lock.json"; then
  echo "lock: the in-place update left gaps; resolving the whole tree afresh" >&2
  rm -f "$tmp/package-lock.json"
  npm_lock
  if ! node "$root/scripts/check-lock.mjs" "$tmp/package-lock.json"; then
    echo "lock: still incomplete. The registry lacks some platform's build of the version named" >&2
    echo "      above: pin a version whose builds are all published (docs/decisions/0009-lock-file-for-every-platform.md)." >&2
    exit 1
  fi
fi
cp "$tmp/package-lock.json" "$root/package-lock.json"
echo "lock: package-lock.json rewritten; install it here with npm ci (or npm install)" >&2
