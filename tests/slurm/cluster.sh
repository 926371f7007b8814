#!/bin/bash
# cluster.sh up|down: three Slurm nodes on this machine, each slurmd in a network namespace of
# its own (n1..n3 at 10.200.0.11-13) on a bridge at 10.200.0.1, where slurmctld and the git
# daemon listen, so that a node can be cut off (`ip link set gfveth2 down`). Needs root,
# Debian's slurm-wlm and munge. S=<scratch folder>.
set -eu
: "${S:?}"
export SLURM_CONF=$S/slurm/slurm.conf
nodes="1 2 3"
up() {
  mkdir -p "$S/slurm/state" "$S/slurm/log"
  local host; host=$(hostname -s)
  {
    echo "ClusterName=gf"
    echo "SlurmctldHost=$host(10.200.0.1)"
    echo "SlurmUser=root"
    echo "SlurmctldPort=16817"
    echo "SlurmdPort=16818"
    echo "AuthType=auth/munge"
    echo "StateSaveLocation=$S/slurm/state"
    echo "SlurmdSpoolDir=$S/slurm/spool-%n"
    echo "SlurmctldPidFile=$S/slurm/slurmctld.pid"
    echo "SlurmdPidFile=$S/slurm/slurmd-%n.pid"
    echo "SlurmctldLogFile=$S/slurm/log/slurmctld.log"
    echo "SlurmdLogFile=$S/slurm/log/slurmd-%n.log"
    # No cgroups: the nodes share one kernel, and a test kills processes by hand.
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_Core"
    echo "MpiDefault=none"
    echo "ReturnToService=2"
    echo "SlurmdTimeout=10"
    echo "SlurmctldTimeout=10"
    echo "KillWait=5"
    echo "JobRequeue=1"
    for i in $nodes; do
      echo "NodeName=n$i NodeAddr=10.200.0.1$i NodeHostname=$host CPUs=2 RealMemory=1000"
    done
    echo "PartitionName=gf Nodes=n[1-3] Default=YES MaxTime=INFINITE State=UP"
  } > "$SLURM_CONF"
  ip link add gfbr type bridge
  ip addr add 10.200.0.1/24 dev gfbr
  ip link set gfbr up
  for i in $nodes; do
    mkdir -p "$S/slurm/spool-n$i"
    ip netns add "gfn$i"
    ip link add "gfveth$i" type veth peer name eth0 netns "gfn$i"
    ip link set "gfveth$i" master gfbr up
    ip netns exec "gfn$i" ip addr add "10.200.0.1$i/24" dev eth0
    ip netns exec "gfn$i" ip link set eth0 up
    ip netns exec "gfn$i" ip link set lo up
  done
  mkdir -p /run/munge && chown munge:munge /run/munge
  pgrep -u munge munged > /dev/null || runuser -u munge -- /usr/sbin/munged
  slurmctld -f "$SLURM_CONF" -i
  sleep 2
  # Only the network is the node's own: `ip netns exec` would also remount /sys.
  for i in $nodes; do nsenter --net="/run/netns/gfn$i" slurmd -f "$SLURM_CONF" -N "n$i"; done
  for _ in $(seq 60); do
    [ "$(sinfo -h -N -o %T | grep -c idle)" = 3 ] && return 0
    sleep 1
  done
  echo "cluster.sh: the three nodes did not come up" >&2
  sinfo -N >&2
  return 1
}
down() {
  for pid in "$S"/slurm/slurmd-n*.pid "$S/slurm/slurmctld.pid"; do
    [ -f "$pid" ] && kill "$(cat "$pid")" 2> /dev/null || true
  done
  sleep 1
  for i in $nodes; do ip netns del "gfn$i" 2> /dev/null || true; done
  ip link del gfbr 2> /dev/null || true
}
"$1"
