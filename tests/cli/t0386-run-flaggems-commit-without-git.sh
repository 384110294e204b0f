#!/bin/bash
# The FlagGems commit on a machine without the git program (the GPU images zlbench runs on
# may lack it): read from .git's files (a branch's loose ref, packed-refs, a detached HEAD),
# its dirty state unknown (null); with git on PATH, git says both, as before.
. "$(dirname "$0")/lib.sh"
demo_checkout "$TMP/fg"
commit=$(git -C "$TMP/fg" rev-parse HEAD)
mkdir "$TMP/nogit"
run_nogit() {
	PATH="$TMP/nogit" run_zl run --flaggems-dir "$TMP/fg" --backend cuda --op add \
		--python "$ZL_TEST_PYTHON" --out "$TMP/$1"
	expect_rc 0
	[ "$(json_get "$TMP/$1/run_identity.json" 'd["flaggems"]["commit"]')" = "$commit" ] ||
		fail "$1: commit $(json_get "$TMP/$1/run_identity.json" 'd["flaggems"]')"
	[ "$(json_get "$TMP/$1/run_identity.json" 'd["flaggems"]["dirty"]')" = None ] ||
		fail "$1: dirty should be unknown without git"
}
# the branch as a loose ref
run_nogit loose
# the branch only in packed-refs
git -C "$TMP/fg" pack-refs --all
[ ! -e "$TMP/fg/.git/refs/heads/$(git -C "$TMP/fg" symbolic-ref --short HEAD)" ] || fail "pack-refs left the ref"
run_nogit packed
# a detached HEAD
git -C "$TMP/fg" checkout -q --detach
run_nogit detached
# a HEAD naming a branch that does not exist: no commit, no guess
printf 'ref: refs/heads/nowhere\n' >"$TMP/fg/.git/HEAD"
PATH="$TMP/nogit" run_zl run --flaggems-dir "$TMP/fg" --backend cuda --op add \
	--python "$ZL_TEST_PYTHON" --out "$TMP/nobranch"
expect_rc 0
[ "$(json_get "$TMP/nobranch/run_identity.json" 'd["flaggems"]["commit"]')" = None ] || fail "guessed a commit"
# with git: the commit and a known dirty state
git -C "$TMP/fg" checkout -q --detach "$commit"
run_zl run --flaggems-dir "$TMP/fg" --backend cuda --op add --python "$ZL_TEST_PYTHON" --out "$TMP/git"
expect_rc 0
[ "$(json_get "$TMP/git/run_identity.json" '(d["flaggems"]["commit"], d["flaggems"]["dirty"])')" = "('$commit', False)" ] ||
	fail "with git: $(json_get "$TMP/git/run_identity.json" 'd["flaggems"]')"
pass
