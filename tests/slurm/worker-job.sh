#!/bin/bash
# A Slurm job that acts as one worker machine: a home, a fabro home and a clone of $REMOTE of
# its own, then `git fabro worker` until the queue is empty. Requeued jobs start afresh.
set -eu
node=${SLURMD_NODENAME:-local}
tag=$node-${SLURM_JOB_ID:-0}-${SLURM_ARRAY_TASK_ID:-0}-${SLURM_RESTART_COUNT:-0}
export HOME=$S/nodes/$tag/home FABRO_HOME=$S/nodes/$tag/fabro PATH=$S/bin:$PATH
export GIT_CONFIG_GLOBAL=$HOME/.gitconfig
unset GIT_DIR GIT_WORK_TREE FABRO_RUN_ID
mkdir -p "$HOME" "$FABRO_HOME"
git config --global user.name "$node"
git config --global user.email "$node@example.invalid"
git clone -q "$REMOTE" "$S/nodes/$tag/clone"
cd "$S/nodes/$tag/clone"
exec git fabro worker --remote origin --trust --ttl "${TTL:-8s}" --name "$node" --exit-when-idle
