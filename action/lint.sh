#!/usr/bin/env bash
# The Action's lint step, also run by gwpol's own tests against testdata
# with a locally built binary (GWPOL). It writes the SARIF log
# (INPUT_SARIF_FILE) for code scanning, prints GitHub annotations, and
# records gwpol's exit code — gated by INPUT_FAIL_ON — as the step output
# "exit-code" rather than failing here, so the SARIF is uploaded whatever
# the outcome; the Action's last step exits with it.
set -uo pipefail

gwpol=${GWPOL:-gwpol}
out=${GITHUB_OUTPUT:-/dev/null}
sarif=${INPUT_SARIF_FILE:-gwpol.sarif}

args=()
read -r -a paths <<<"$(echo "${INPUT_PATHS:-.}" | tr '\n' ' ')"
for p in "${paths[@]}"; do args+=(-f "$p"); done
if [ -n "${INPUT_CONFIG:-}" ]; then args+=(--config "$INPUT_CONFIG"); fi
if [ -n "${INPUT_ARGS:-}" ]; then
  read -r -a extra <<<"$INPUT_ARGS"
  args+=("${extra[@]}")
fi

# The SARIF log: every finding, whatever --fail-on says. gwpol writes a
# complete log even when it exits 3 (its notifications say why).
"$gwpol" lint "${args[@]}" -o sarif --fail-on none --out "$sarif"
sarif_code=$?
if [ -s "$sarif" ]; then
  echo "sarif-file=$sarif" >>"$out"
fi

# Annotations on the pull request, and the exit code that gates the job.
"$gwpol" lint "${args[@]}" -o github --fail-on "${INPUT_FAIL_ON:-error}"
code=$?
if [ "$sarif_code" -gt 1 ] && [ "$code" -le 1 ]; then
  code=$sarif_code # a usage or input error the second run did not repeat
fi
echo "exit-code=$code" >>"$out"
echo "gwpol lint exited $code" >&2
exit 0
