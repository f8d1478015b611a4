#!/usr/bin/env bash
# The Slurm path of `infergrid sweep`, for real (docs/sweep.md#slurm): a one-node Slurm cluster
# on localhost (munged, slurmctld and slurmd as children of this script, in a folder of its
# own, on free ports), an `sbatch --wait --array=0-1` job whose tasks each run their shard of a
# small sweep (the shard from SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT), then
# `infergrid sweep merge` of the two folders and a check of the merged row count; the daemons
# are stopped at the end whatever happened. Every wait is bounded (TIMEOUT seconds, default 90).
# Follows ../shared/slurm-notes.md. Needs root and Debian's slurmctld, slurmd, slurm-client and
# munge (scripts/install-deps.sh); exits 77 (skipped, for ctest) when they are missing.
# Usage: scripts/ci/slurm-sweep-test.sh [path/to/infergrid]   (default: ./build/sim/infergrid)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="$(realpath "${1:-./build/sim/infergrid}")"
TIMEOUT="${TIMEOUT:-90}"
[[ -x "$BIN" ]] || { echo "slurm-sweep-test: no binary at $BIN" >&2; exit 1; }
for tool in munged mungekey slurmctld slurmd sbatch scontrol; do
  command -v "$tool" >/dev/null || { echo "slurm-sweep-test: skipped: no $tool (scripts/install-deps.sh)" >&2; exit 77; }
done
[[ $(id -u) -eq 0 ]] || { echo "slurm-sweep-test: skipped: slurmd needs root" >&2; exit 77; }

WORK="$(mktemp -d /tmp/infergrid-slurm.XXXXXX)"
chmod 700 "$WORK"
PIDS=()
stop() {
  local rc=$?
  # TERM each daemon we started, wait until it is gone (bounded), then reap it.
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [[ $rc -ne 0 ]]; then
    for log in "$WORK"/*.log "$WORK"/job-*.out; do
      [[ -f "$log" ]] && { echo "--- $log" >&2; tail -n 20 "$log" >&2; }
    done
  fi
  rm -rf "$WORK"
  exit $rc
}
trap stop EXIT
fail() { echo "slurm-sweep-test: FAILED: $*" >&2; exit 1; }
# Polls `$@` every 0.2 s until it succeeds, for at most $TIMEOUT seconds.
wait_for() {
  local what="$1"; shift
  local deadline=$((SECONDS + TIMEOUT))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || fail "timed out waiting for $what"
    sleep 0.2
  done
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# munge: a key of our own, the daemon in the foreground with its socket and files here.
mkdir -p "$WORK/munge" "$WORK/state" "$WORK/spool"
chmod 700 "$WORK/munge"
mungekey --create --keyfile="$WORK/munge/munge.key"
munged --foreground --force --key-file="$WORK/munge/munge.key" --socket="$WORK/munge/munge.socket" \
  --log-file="$WORK/munged.log" --pid-file="$WORK/munge/munged.pid" --seed-file="$WORK/munge/munged.seed" \
  >"$WORK/munged.out.log" 2>&1 &
PIDS+=($!)
wait_for "munged's socket" test -S "$WORK/munge/munge.socket"

# slurm.conf: controller and node on 127.0.0.1, the node's CPUs and memory from `slurmd -C`.
export SLURM_CONF="$WORK/slurm.conf"  # before any Slurm command, or it looks up DNS SRV records
: > "$SLURM_CONF"
hardware="$(slurmd -C | head -n 1 | sed -e 's/^NodeName=[^ ]* //')"
cat > "$SLURM_CONF" <<CONF
ClusterName=infergrid
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$WORK/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/slurmctld.log
SlurmdLogFile=$WORK/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerParameters=batch_sched_delay=0
# Cores only, not memory: without it each task would take the node's memory, and so the node.
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MailProg=/bin/true
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 $hardware State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF

# Foreground daemons, children of this script: their PIDs from $! (forking ones would leave
# zombies that still answer kill -0).
slurmctld -D -i >"$WORK/slurmctld.out.log" 2>&1 &
PIDS+=($!)
slurmd -D -N localhost >"$WORK/slurmd.out.log" 2>&1 &
PIDS+=($!)
wait_for "slurmctld" scontrol ping
wait_for "the node to be idle" bash -c "scontrol show node localhost | grep -q 'State=IDLE'"

# The sweep: 2 rates x 2 schedulers, each shard in a folder of its own.
cat > "$WORK/sweep.textproto" <<SPEC
base: "--max-requests=20"
grid { flag: "rate" values: ["4", "8"] }
grid { flag: "scheduler" values: ["vllm", "sarathi"] }
SPEC
cat > "$WORK/job.sh" <<JOB
#!/bin/bash
exec "$BIN" sweep --spec="$WORK/sweep.textproto" --out="$WORK/out/shard-\$SLURM_ARRAY_TASK_ID" --jobs=1
JOB
chmod +x "$WORK/job.sh"
cd "$WORK"
timeout "$TIMEOUT" sbatch --wait --array=0-1 --cpus-per-task=1 --output="$WORK/job-%a.out" "$WORK/job.sh" \
  || fail "sbatch --wait returned $? (a task failed, or the job timed out)"
for task in 0 1; do
  grep -q "of shard $task/2" "$WORK/job-$task.out" || fail "task $task did not run shard $task/2"
done
"$BIN" sweep merge --out="$WORK/merged" "$WORK"/out/shard-* || fail "sweep merge"
rows=$(($(wc -l < "$WORK/merged/results.csv") - 1))
((rows == 4)) || fail "merged results.csv has $rows rows, expected 4"
echo "slurm-sweep-test: ok: 2 array tasks, 4 runs merged"
