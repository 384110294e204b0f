# For the fault tests that mount (a small tmpfs for a full disk, a read-only bind mount):
# source this BEFORE lib.sh. It re-runs the test in a private mount namespace, so that its
# mounts vanish with it and no other test sees them: as root with `unshare -m`, else as a
# mapped root in a user namespace (`unshare -rm`). Where neither is allowed the test is
# skipped (exit 77, SKIP_RETURN_CODE in tests/CMakeLists.txt). CI runs as root.
if [ -z "${ZL_MOUNT_NS:-}" ]; then
	for zl_ns_how in -m -rm; do
		if unshare "$zl_ns_how" --propagation private \
			sh -c 'd=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs "$d" && umount "$d" && rmdir "$d"' \
			2>/dev/null; then
			ZL_MOUNT_NS=1 exec unshare "$zl_ns_how" --propagation private bash "$0" "$@"
		fi
	done
	echo "skip [$(basename "$0" .sh)]: cannot mount in a private mount namespace (needs root or user namespaces)"
	exit 77
fi
