#!/usr/bin/env bash
# A throwaway single-node Slurm cluster on localhost, for oprun's cluster tests and benchmarks.
#
#   scripts/slurm-cluster.sh install     the Debian packages (slurmctld slurmd slurm-client munge); as root
#   scripts/slurm-cluster.sh up          munged, slurmctld and slurmd in $OPRUN_SLURM_HOME; waits (bounded)
#                                        until the node is idle
#   scripts/slurm-cluster.sh down        stops what `up` started, by its pid files
#   eval "$(scripts/slurm-cluster.sh env)"   points sbatch, squeue, scancel and scontrol at it
#
# No systemd is needed and no system configuration is touched: the cluster's configuration,
# munge key, state and logs all live under OPRUN_SLURM_HOME (default /tmp/oprun-slurm). Slurm's
# ports are fixed (6817, 6818): one such cluster per machine. OPRUN_SLURM_CPUS (default 4) is
# how many CPUs the node declares.
set -euo pipefail

home=${OPRUN_SLURM_HOME:-/tmp/oprun-slurm}
cpus=${OPRUN_SLURM_CPUS:-4}
node=$(hostname -s)
conf=$home/etc/slurm.conf
socket=$home/munge/socket
export SLURM_CONF=$conf

say() { printf 'slurm-cluster: %s\n' "$*" >&2; }

# Polls `command...` every 0.1 s until it succeeds; fails after `seconds`.
await() {
  local seconds=$1 what=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      say "gave up after ${seconds} s waiting for $what"
      return 1
    fi
    sleep 0.1
  done
}

# Ends the process whose pid `file` holds: SIGTERM, then SIGKILL after 10 s.
end_process() {
  local file=$1 pid
  [ -s "$file" ] || return 0
  pid=$(cat "$file")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + 10))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}

write_configuration() {
  local memory
  memory=$(awk '/^MemTotal:/ { print int($2 / 1024) - 512 }' /proc/meminfo)
  cat >"$conf" <<CONF
# Written by oprun's scripts/slurm-cluster.sh: a single node on localhost, for tests.
ClusterName=oprun-test
SlurmctldHost=$node(127.0.0.1)
SlurmUser=slurm
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$home/state
SlurmdSpoolDir=$home/spool
SlurmctldPidFile=$home/run/slurmctld.pid
SlurmdPidFile=$home/run/slurmd.pid
SlurmctldLogFile=$home/log/slurmctld.log
SlurmdLogFile=$home/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
MailProg=/bin/true
MpiDefault=none
SwitchType=switch/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# Schedule at once on every submission and every second, not every minute.
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0,bf_interval=1
PriorityType=priority/multifactor
PriorityWeightPartition=1000
PriorityWeightFairshare=0
PriorityWeightJobSize=0
PriorityWeightAge=0
# Dependents of a job whose afterok can never hold end CANCELLED instead of pending forever.
DependencyParameters=kill_invalid_depend
ReturnToService=2
# Ended jobs stay visible to squeue and scontrol for ten minutes (there is no accounting).
MinJobAge=600
SlurmdParameters=config_overrides
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$node CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
}

case ${1:-} in
install)
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null &&
    command -v munged >/dev/null; then
    exit 0
  fi
  sudo=$([ "$(id -u)" = 0 ] || echo sudo)
  say "installing slurmctld slurmd slurm-client munge"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
    --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null
  ;;
env)
  echo "export SLURM_CONF=$conf"
  ;;
up)
  [ "$(id -u)" = 0 ] || { say "up needs root (the daemons run as slurm and munge)"; exit 2; }
  command -v slurmctld >/dev/null || { say "Slurm is not installed: run '$0 install' first"; exit 2; }
  "$0" down 2>/dev/null || true
  rm -rf "$home/state" "$home/spool"
  mkdir -p "$home"/{etc,state,spool,log,run,munge}
  chown slurm:slurm "$home"/{state,log,run}
  chown munge:munge "$home/munge"
  chmod 755 "$home" "$home/munge"
  if [ ! -s "$home/munge/munge.key" ]; then
    mungekey --create --keyfile="$home/munge/munge.key"
    chown munge:munge "$home/munge/munge.key"
    chmod 400 "$home/munge/munge.key"
  fi
  runuser -u munge -- /usr/sbin/munged --key-file="$home/munge/munge.key" --socket="$socket" \
    --pid-file="$home/munge/munged.pid" --log-file="$home/munge/munged.log" --seed-file="$home/munge/munged.seed"
  await 10 munged munge --socket="$socket" -n
  write_configuration
  # -c: no saved state, so that job ids start afresh.
  /usr/sbin/slurmctld -c
  /usr/sbin/slurmd
  if ! await 60 "the node to be idle" bash -c '[ "$(sinfo -h -o %t)" = idle ]'; then
    tail -n 20 "$home/log/slurmctld.log" "$home/log/slurmd.log" >&2 || true
    exit 1
  fi
  say "up: $(sinfo -h -o '%P %D node(s) %t, %c CPUs')"
  ;;
down)
  if [ -s "$home/run/slurmctld.pid" ]; then
    scontrol shutdown >/dev/null 2>&1 || true
    deadline=$((SECONDS + 10))
    while { [ -e "$home/run/slurmctld.pid" ] || [ -e "$home/run/slurmd.pid" ]; } && ((SECONDS < deadline)); do
      sleep 0.1
    done
  fi
  end_process "$home/run/slurmd.pid"
  end_process "$home/run/slurmctld.pid"
  end_process "$home/munge/munged.pid"
  say "down"
  ;;
*)
  echo "usage: $0 install|up|down|env" >&2
  exit 2
  ;;
esac
