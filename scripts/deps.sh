#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# deps.sh GROUP...        make sure the Debian packages a target needs are here.
# deps.sh --list GROUP... print the packages of those groups (for .ci/run).
#
# Missing packages are installed with apt-get when we are root (CI, a fresh
# machine); otherwise the script names them and the command that installs
# them, and exits 1. Groups: build test peers experiments vm paper fuzz model.
set -eu

pkgs_build="gcc g++ make pkg-config libnuma-dev libhwloc-dev"
pkgs_test="libcmocka-dev valgrind likwid"
pkgs_peers="libck-dev libdpdk-dev libconcurrentqueue-dev libboost-dev libtbb-dev libxenium-dev liburcu-dev"
pkgs_experiments="numactl hwloc likwid gnuplot-nox python3 python3-matplotlib python3-pandas python3-scipy python3-jinja2 util-linux"
pkgs_vm="qemu-system-x86 busybox-static cpio"
pkgs_paper="latexmk texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended poppler-utils"
pkgs_fuzz="clang libclang-rt-14-dev"
pkgs_model="spin gcc"

list_only=0
if [ "${1:-}" = "--list" ]; then
	list_only=1
	shift
fi

want=""
for g in "$@"; do
	case "$g" in
	build) want="$want $pkgs_build" ;;
	test) want="$want $pkgs_test" ;;
	peers) want="$want $pkgs_peers" ;;
	experiments) want="$want $pkgs_experiments" ;;
	vm) want="$want $pkgs_vm" ;;
	paper) want="$want $pkgs_paper" ;;
	fuzz) want="$want $pkgs_fuzz" ;;
	model) want="$want $pkgs_model" ;;
	*) echo "deps.sh: unknown group '$g' (groups: build test peers experiments vm paper fuzz model)" >&2; exit 2 ;;
	esac
done

if [ "$list_only" = 1 ]; then
	echo $want
	exit 0
fi

missing=""
for p in $want; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps.sh: installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null || { echo "deps.sh: apt-get update failed" >&2; exit 1; }
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing >/dev/null ||
		{ echo "deps.sh: apt-get install of$missing failed" >&2; exit 1; }
	exit 0
fi
echo "deps.sh: missing Debian packages:$missing" >&2
echo "deps.sh: install them with: sudo apt-get install -y$missing" >&2
exit 1
