#!/usr/bin/env bash
# Installs a released gwpol for the runner (the Action's first step) and
# writes its path to the step output "gwpol". GWPOL_VERSION is a release
# (1.2.0 or v1.2.0) or "latest". The archive is checked against the
# release's checksums.txt before it is unpacked.
set -euo pipefail

repo=${GWPOL_REPO:-gwpol/gwpol}
version=${GWPOL_VERSION:-latest}
auth=()
if [ -n "${GITHUB_TOKEN:-}" ]; then auth=(-H "Authorization: Bearer ${GITHUB_TOKEN}"); fi

case "${RUNNER_OS:-$(uname -s)}" in
  Linux) os=linux ;;
  macOS | Darwin) os=darwin ;;
  Windows | MINGW* | MSYS*) os=windows ;;
  *) echo "gwpol: unsupported runner OS ${RUNNER_OS:-$(uname -s)}" >&2; exit 1 ;;
esac
case "${RUNNER_ARCH:-$(uname -m)}" in
  X64 | x86_64 | amd64) arch=amd64 ;;
  ARM64 | arm64 | aarch64) arch=arm64 ;;
  *) echo "gwpol: unsupported runner architecture ${RUNNER_ARCH:-$(uname -m)}" >&2; exit 1 ;;
esac

if [ "$version" = latest ]; then
  version=$(curl -fsSL "${auth[@]}" "https://api.github.com/repos/${repo}/releases/latest" |
    sed -n 's/.*"tag_name": *"\([^"]*\)".*/\1/p' | head -n1)
  [ -n "$version" ] || { echo "gwpol: cannot find the latest release of ${repo}" >&2; exit 1; }
fi
version=${version#v}

ext=tar.gz
[ "$os" = windows ] && ext=zip
archive="gwpol_${version}_${os}_${arch}.${ext}"
base="https://github.com/${repo}/releases/download/v${version}"
dir="${RUNNER_TEMP:-$(mktemp -d)}/gwpol-${version}"
mkdir -p "$dir"
curl -fsSL "${auth[@]}" -o "$dir/$archive" "$base/$archive"
curl -fsSL "${auth[@]}" -o "$dir/checksums.txt" "$base/checksums.txt"
(cd "$dir" && grep " ${archive}\$" checksums.txt | sha256sum -c -) >&2
if [ "$ext" = zip ]; then unzip -oq "$dir/$archive" -d "$dir"; else tar -xzf "$dir/$archive" -C "$dir"; fi

bin="$dir/gwpol"
[ "$os" = windows ] && bin="$dir/gwpol.exe"
"$bin" version >&2
echo "gwpol=$bin" >>"${GITHUB_OUTPUT:-/dev/stdout}"
