#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Slurm recipe of docs/jobs.md, run for real on a single-node cluster
# started here: munged with a fresh key, slurmctld and slurmd as root with a
# generated slurm.conf (proctrack/linuxproc, task/none), state, spool, logs
# and sockets under a temporary folder, ports chosen free. A job array runs
# one shard per task (vkcollide run --shard slurm), a job that depends on it
# merges them, and the merged bytes must equal a single run's. The daemons
# are stopped by their pid files at the end, whatever happens.
#
#   tests/slurm_test.sh PATH/TO/vkcollide
#
# Needs root (slurmd runs jobs as their user) and Debian's slurm-wlm and
# munge. Exit status 0 when the array's merge equals the single run.
set -euo pipefail
tool=$(realpath "${1:?usage: slurm_test.sh PATH/TO/vkcollide}")
src=${VKCOL_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}

fail() {
	echo "slurm_test: $*" >&2
	exit 1
}
[ "$(id -u)" -eq 0 ] || fail "needs root to start slurmctld and slurmd (CI runs as root)"
for p in munged slurmctld slurmd sbatch squeue scontrol; do
	command -v "$p" >/dev/null || fail "$p not found (Debian: apt-get install slurm-wlm munge)"
done

t=$(mktemp -d /tmp/vkcol-slurm.XXXXXX)
chmod 755 "$t"
stop() {
	status=$?
	for d in slurmd slurmctld munged; do
		if [ -s "$t/$d.pid" ]; then
			pid=$(cat "$t/$d.pid")
			kill "$pid" 2>/dev/null || true
			for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
			kill -9 "$pid" 2>/dev/null || true
		fi
	done
	if [ "$status" -ne 0 ]; then
		for f in "$t"/*.log "$t"/work/slurm-*.out; do
			[ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }
		done
	fi
	rm -rf "$t"
	exit "$status"
}
trap stop EXIT

# Munge: a key of our own and a socket in the folder.
dd if=/dev/urandom of="$t/munge.key" bs=1024 count=1 status=none
chmod 400 "$t/munge.key"
munged --key-file="$t/munge.key" --socket="$t/munge.sock" --pid-file="$t/munged.pid" \
	--log-file="$t/munged.log" --seed-file="$t/munge.seed" --force
for _ in $(seq 50); do [ -S "$t/munge.sock" ] && break; sleep 0.1; done
[ -S "$t/munge.sock" ] || fail "munged did not start"

# Two free TCP ports on this machine.
read -r ctld_port d_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
host=$(hostname -s)
cpus=$(nproc)
mkdir -p "$t/state" "$t/spool" "$t/work"
cat > "$t/slurm.conf" <<CONF
ClusterName=vkcoltest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$t/munge.sock
StateSaveLocation=$t/state
SlurmdSpoolDir=$t/spool
SlurmctldPidFile=$t/slurmctld.pid
SlurmdPidFile=$t/slurmd.pid
SlurmctldLogFile=$t/slurmctld.log
SlurmdLogFile=$t/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$t/slurm.conf
slurmctld -f "$t/slurm.conf"
slurmd -f "$t/slurm.conf" -N "$host"
up=0
for _ in $(seq 100); do
	if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then up=1; break; fi
	sleep 0.2
done
[ "$up" -eq 1 ] || fail "the node did not come up: $(sinfo 2>&1 || true)"

# The job: the example scene, in the work folder (shared by every task).
cd "$t/work"
python3 "$src/examples/scene/make_scene.py" --out . --pairs 2000 >/dev/null
sed -i 's#"\.\./box\.obj"#"'"$src"'/examples/box.obj"#; s#"\.\./torus\.obj"#"'"$src"'/examples/torus.obj"#' scene.json
"$tool" run scene.json --out single.csv -q

shards=3
array=$(sbatch --parsable --array=0-$((shards - 1)) --job-name=vkcol-shards \
	--wrap "'$tool' run scene.json --shard slurm --out results.csv -q")
merge=$(sbatch --parsable --dependency=afterok:$array --job-name=vkcol-merge \
	--wrap "'$tool' merge --out results.csv results.shard-*-of-$shards.csv")
echo "slurm_test: array job $array ($shards tasks), merge job $merge (afterok)"

# Wait for both to leave the queue (at most 240 s).
for _ in $(seq 1200); do
	[ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && break
	sleep 0.2
done
[ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] || fail "the jobs did not finish: $(squeue)"
for k in $(seq 0 $((shards - 1))); do
	[ -f "results.shard-$k-of-$shards.csv" ] || fail "task $k wrote no shard"
done
[ -f results.csv ] || fail "the merge job wrote no results.csv"
cmp results.csv single.csv || fail "the merged shards differ from the single run"
rows=$(($(wc -l < results.csv) - 2))
echo "slurm_test: $shards array tasks and a dependent merge gave the single run's $rows rows, byte for byte"
echo "1 passed, 0 failed"
