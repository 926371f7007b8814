#!/bin/sh
# A long soak of the model test (tests/cli/model): many more random sessions than CI plays,
# every case played to its end and every failure reported with its seed and replay command.
#
#   bench/model_soak.sh [CASES] [STEPS] [FIRST_SEED]     (defaults: 200 cases of 40 steps, seed 1000)
#
# Besides the failure points CI kills at, it kills commands by SIGKILL after random delays.
# It runs the debug build on purpose: the failure points it kills commands at are compiled out
# of release builds. The summary line (cases, steps, kills, failed seeds) and the time taken
# go to stderr.
set -eu
cd "$(dirname "$0")/.."
cases=${1:-200}
steps=${2:-40}
first=${3:-1000}
cargo build --locked --tests --quiet
start=$(date +%s)
status=0
FABRO_MODEL_CASES=$cases FABRO_MODEL_STEPS=$steps FABRO_MODEL_FIRST_SEED=$first \
  FABRO_MODEL_SIGKILL=1 FABRO_MODEL_KEEP_GOING=1 cargo test --locked --quiet --test cli model -- --nocapture || status=$?
echo "model soak: $cases cases of $steps steps from seed $first in $(( $(date +%s) - start )) s" >&2
exit $status
