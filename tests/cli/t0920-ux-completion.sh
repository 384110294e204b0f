#!/bin/bash
# zlbench completion bash|zsh: scripts the shells accept, that complete commands, options,
# backends and operators, and whose options every command really takes.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/fixtures/doctor/doctor_lib.sh"
cd "$TMP"
fg_tree fg

run_zl completion
expect_rc 2
run_zl completion fish
expect_rc 2
contains "$TMP/err" "unknown shell 'fish'"

run_zl completion bash
expect_rc 0
cp "$TMP/out" "$TMP/zl.bash"
bash -n "$TMP/zl.bash" || fail "bash -n rejects the bash script"
run_zl completion zsh
expect_rc 0
cp "$TMP/out" "$TMP/zl.zsh"
head -1 "$TMP/zl.zsh" | grep -qx '#compdef zlbench' || fail "zsh script lacks #compdef"
if command -v zsh >/dev/null; then
	zsh -n "$TMP/zl.zsh" || fail "zsh -n rejects the zsh script"
	zsh -f -c "autoload -U compinit; compinit -u -d '$TMP/zcompdump'; source '$TMP/zl.zsh'; [[ \${_comps[zlbench]} == _zlbench ]]" ||
		fail "sourcing the zsh script does not register _zlbench"
	grep -F -- "\"batch --ops\"" "$TMP/zl.zsh" | grep -qF -- ") compset -P '*,'; compadd -- \${(f)\"\$(_zlbench_ops)\"}" ||
		fail "zsh: batch's --ops does not complete operators"
else
	echo "note [$TEST_NAME]: zsh not installed: zsh script checked for #compdef only" >&2
fi

# complete WORDS...: what the bash script offers for the command line WORDS (the last is the word being completed)
complete_line() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _zlbench; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$TMP/zl.bash" "$ZLBENCH" "$@" >"$TMP/offered"
}
offers() {
	grep -qx -- "$1" "$TMP/offered" || fail "completion does not offer '$1': $(tr '\n' ' ' <"$TMP/offered")"
}
complete_line do
offers doctor
complete_line ""
for c in $(sed -n '/^Commands:/,/^$/p' <("$ZLBENCH" help) | awk 'NF > 1 { print $1 }'); do offers "$c"; done
complete_line --ver
offers --version
complete_line run --flaggems
offers --flaggems-dir
complete_line doctor --st
offers --strict
offers --step-timeout
complete_line run --backend ""
for b in cuda musa rocm ascend; do offers $b; done
complete_line run --level ""
offers core
offers comprehensive
complete_line doctor --flaggems-dir fg --op r
offers router_gemm
complete_line doctor --flaggems-dir fg --op ""
offers mm
offers add
FLAGGEMS_DIR="$TMP/fg" complete_line run --op m
offers mm
# batch's --ops (and --warmup-ops) take operators like run's --op: the name after the last comma
complete_line batch --flaggems-dir fg --ops r
offers router_gemm
complete_line batch --flaggems-dir fg --ops ""
offers mm
offers add
lacks "$TMP/offered" "fg"
complete_line batch --flaggems-dir fg --ops mm,r
offers mm,router_gemm
complete_line batch --flaggems-dir fg --ops = mm,add,
offers mm,add,router_gemm
FLAGGEMS_DIR="$TMP/fg" complete_line batch --ops mm --warmup-ops a
offers add
# batch refuses the one-run selectors its help lists among the run settings
complete_line batch --op
offers --ops
offers --ops-file
for o in --op --op-file --test-node; do
	grep -qx -- "$o" "$TMP/offered" && fail "batch completion offers $o, which batch refuses"
done
complete_line help com
offers compare
offers completion
complete_line completion ""
offers bash
offers zsh
mkdir -p somedir
complete_line run --out som
offers somedir

# the hidden operator lister
run_zl completion --list-ops --flaggems-dir fg
expect_rc 0
[ "$(sort "$TMP/out" | tr '\n' ' ')" = "add mm router_gemm " ] || fail "list-ops: $(cat "$TMP/out")"

# every option the script offers is one the command accepts (valued ones with =x)
valued=$(bash -c 'source "$1"; echo "$_zlbench_valued"' _ "$TMP/zl.bash")
for c in $(sed -n '/^Commands:/,/^$/p' <("$ZLBENCH" help) | awk 'NF > 1 { print $1 }'); do
	opts=$(bash -c 'source "$1"; v="_zlbench_opts_$2"; echo "${!v}"' _ "$TMP/zl.bash" "$c")
	[ -n "$opts" ] || fail "no option list for $c"
	for o in $opts; do
		[ "$o" = --help ] && continue
		case " $valued " in
		*" $o "*) arg="$o=x" ;;
		*) arg="$o" ;;
		esac
		run_zl "$c" "$arg" --help
		[ "$RC" -eq 0 ] && grep -q "usage:" "$TMP/out" ||
			fail "'zlbench $c $arg --help' exits $RC: the script offers an option the command refuses: $(cat "$TMP/err")"
		# --help answers before batch looks at its options: ask batch itself
		if [ "$c" = batch ]; then
			run_zl batch --backend cuda --ops mm --dry-run "$arg"
			lacks "$TMP/err" "names one run"
		fi
	done
done
pass
