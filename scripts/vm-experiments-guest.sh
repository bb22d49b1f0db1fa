#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# vm-experiments-guest.sh RESULTS - make vm-experiments, run INSIDE the numa-vm
# guest (scripts/vm/numa_vm.py, scripts/vm/vm_experiments.py): the experiment runner
# as a two-socket host runs it (python3 -m scripts.runner.experiments run on the machine's
# own nodes, no NUMARING_TOPOLOGY), with the smoke profile of every
# experiment, into RESULTS (a folder under /work that numa_vm.py --fetch
# sends back). Prints the guest's topology as numactl and hwloc see it first;
# the runner keeps both in RESULTS/<host>/env/ too.
# Exits with the runner's status. Timings in the guest mean nothing.
set -eu
if [ $# -ne 1 ]; then
	echo "vm-experiments-guest.sh: expected one argument, the results folder" >&2
	exit 2
fi
# The runner names the host folder after the host name, which the guest's
# init leaves unset ("(none)"): say what the machine is.
hostname numavm-guest
unset NUMARING_TOPOLOGY
echo "== numactl -H"
numactl -H
echo "== lstopo-no-graphics"
lstopo-no-graphics --of console
# From /work (the guest's copy of the repository root): the scripts package.
cd /work
echo "== python3 -m scripts.runner.experiments run --profile smoke --results $1"
exec /usr/bin/python3 -m scripts.runner.experiments run --profile smoke --results "$1"
