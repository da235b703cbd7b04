#!/usr/bin/env bash
# test.sh: the Slurm recipe of docs/CLUSTER.md, for real, on this machine:
# installs Debian's slurm-wlm and munge if they are missing (apt-get; run
# as root), starts munged, slurmctld and slurmd for a one-node cluster on
# localhost (private ports, state and logs in a temporary folder), submits
# a gp fit as an array of chain groups with scripts/slurm/submit.sh, waits
# for the merge job, and checks that the merged draws.csv equals a
# one-process run's byte for byte. Stops the daemons it started on the way
# out. Exits 1 if the draws differ or a job fails.
#
#   sudo scripts/slurm/test.sh          # or: make slurm-test
#
# SHARDS (default 2) array tasks of CHAINS/SHARDS chains (CHAINS default 4).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
GROUPS_=${SHARDS:-2}
CHAINS=${CHAINS:-4}
work=$(mktemp -d /tmp/slurmtest.XXXXXX)
chmod 755 "$work" # munged runs as munge
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for f in "$work"/*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true; done
	sleep 1
	rm -rf "$work"
}
trap cleanup EXIT
t0=$(date +%s)
step() { echo "[$(($(date +%s) - t0)) s] $*"; }

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	step "installing slurm-wlm and munge"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi
step "$(slurmctld -V), $(munged -V 2>&1 | head -1)"

# munge: a key of its own, a socket in the work folder.
mkdir -p "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chown -R munge:munge "$work/munge" 2>/dev/null || true
chmod 700 "$work/munge"
chmod 400 "$work/munge/munge.key"
chown munge:munge "$work/munge/munge.key"
sock=$work/munge/munge.socket
runuser -u munge -- munged --key-file="$work/munge/munge.key" --socket="$sock" \
	--pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge/seed" --force
pids+=("$(cat "$work/munge/munged.pid")")

host=$(hostname -s)
mkdir -p "$work/state" "$work/spool"
cat >"$work/slurm.conf" <<CONF
ClusterName=subtemper-test
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldPort=16817
SlurmdPort=16818
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
slurmctld -c -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
	sinfo -h -o '%t' 2>/dev/null | grep -q idle && break
	sleep 1
done
step "cluster up: $(sinfo -h -o '%P %D node(s) %t %c CPUs')"

bin=$work/subtemper
(cd "$root" && go build -o "$bin" ./cmd/subtemper)
fit=(gp --n 60 --warmup 150 --draws 200 --chains "$CHAINS" --min-ess 0 --ladder fixed --seed 11 --backend gonum --quiet)
step "one-process run: ${fit[*]}"
"$bin" "${fit[@]}" --out "$work/one" >/dev/null

step "submitting $GROUPS_ array tasks of $((CHAINS / GROUPS_)) chains and the merge"
read -r array merge < <(SUBTEMPER=$bin "$root/scripts/slurm/submit.sh" "$work/cluster" "$GROUPS_" "${fit[@]}")
step "array job $array, merge job $merge"
while squeue -h -j "$array,$merge" 2>/dev/null | grep -q .; do sleep 1; done
step "jobs done"
fail=0
for i in $(seq 0 $((GROUPS_ - 1))); do
	[ -s "$work/cluster/shard-$i/draws.csv" ] || { echo "shard $i wrote no draws:"; cat "$work/cluster/shard-$i.log"; fail=1; }
done
if [ ! -s "$work/cluster/merged/draws.csv" ]; then
	echo "the merge wrote no draws:"
	cat "$work/cluster/merge.log"
	fail=1
elif cmp "$work/one/draws.csv" "$work/cluster/merged/draws.csv"; then
	step "merged draws.csv ($(($(wc -l <"$work/one/draws.csv") - 1)) lines) identical to the one-process run's"
else
	fail=1
fi
[ "$fail" -eq 0 ] && step "PASS" || { step "FAIL"; tail -20 "$work/slurmctld.log" "$work/slurmd.log"; }
exit "$fail"
