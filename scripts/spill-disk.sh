#!/bin/sh
# spill-disk.sh [DIR] [SIZE]: a steady spill disk for the elasticity
# benchmarks, and prints its mount point.
#
# A VM's virtual disk is not steady: the host caches bursts, so a spilled
# byte costs less in a long spill than in a short one, and a model learnt
# on a small sample's short spills cannot carry to the full input's long
# ones (elasticity/doc.go, "From a sample to the whole input").
# This makes DIR (default /mnt/wlprof-spill) an ext4 file system on a zram
# block device of SIZE (default 4G; zram takes memory only for what is
# written, and the benchmarks delete their spills): no host cache, no
# other tenant. Throttled by the profiler's --disk-limit
# (WLPROF_RETARGET_DISK_LIMIT), it becomes a disk of that rate whose cost
# per byte does not depend on the burst: zram is a non-rotational device,
# so blk-throttle's time slice is 20 ms and a new burst's free allowance
# is the rate × 20 ms (1 MiB at 50 MiB/s), where the VM disk's (rotational,
# 100 ms) is five times that.
#
# Needs root (zram, mkfs, mount). Idempotent: a DIR that is already a zram
# mount is reused. `make bench-retarget` calls it.
set -eu
dir=${1:-/mnt/wlprof-spill}
size=${2:-4G}

fail() { echo "spill-disk: $*" >&2; exit 1; }

if [ "$(id -u)" != 0 ]; then
	fail "needs root (zram, mkfs.ext4 and mount); run it as root or set WLPROF_RETARGET_SPILL_DIR to a directory on a steady disk of your own"
fi
if src=$(findmnt -n -o SOURCE --target "$dir" 2>/dev/null) && [ "$(findmnt -n -o TARGET --target "$dir")" = "$dir" ]; then
	case $src in
	/dev/zram*) echo "$dir"; exit 0 ;;
	*) fail "$dir is already a mount of $src, not a zram disk: give another directory" ;;
	esac
fi
if [ ! -e /sys/class/zram-control/hot_add ] && [ ! -e /sys/block/zram0 ]; then
	modprobe zram 2>/dev/null || true
fi
# A free zram device: zram0 when nothing uses it, else a new one.
dev=
if [ -e /sys/block/zram0 ] && [ "$(cat /sys/block/zram0/disksize)" = 0 ]; then
	dev=zram0
elif [ -e /sys/class/zram-control/hot_add ]; then
	dev=zram$(cat /sys/class/zram-control/hot_add)
fi
[ -n "$dev" ] && [ -e "/sys/block/$dev" ] ||
	fail "no free zram device (this kernel has no zram module, or zram0 is in use and hot_add is missing)"
command -v mkfs.ext4 >/dev/null || fail "mkfs.ext4 not found (Debian package e2fsprogs)"
# lz4 where the kernel has it: the least CPU per spilled byte.
if grep -qw lz4 "/sys/block/$dev/comp_algorithm"; then
	echo lz4 >"/sys/block/$dev/comp_algorithm"
fi
echo "$size" >"/sys/block/$dev/disksize"
# A device left half made is reset, so that it is free for the next try.
if ! { mkfs.ext4 -q -F "/dev/$dev" >/dev/null && mkdir -p "$dir" && mount -o discard "/dev/$dev" "$dir"; }; then
	echo 1 >"/sys/block/$dev/reset" 2>/dev/null || true
	fail "could not make an ext4 file system on /dev/$dev and mount it on $dir"
fi
chmod 1777 "$dir"
echo "$dir"
