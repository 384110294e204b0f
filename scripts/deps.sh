#!/bin/bash
# Install the Debian packages zlbench builds and tests with, when any is missing.
# Sourced by scripts/main-job.sh, scripts/test.sh and .ci/run. chromium and python3-pil:
# tests/cli/t1140-report-render.sh renders the report pages and checks the screenshots.
# dpkg-dev and file: CPack's DEB generator computes Depends with dpkg-shlibdeps; man-db:
# the install test's man -l; lintian: the package test checks the .deb against Debian policy.
# clang and its compiler-rt, which holds libFuzzer: scripts/fuzz.sh.
zl_packages=(cmake gcc make pkg-config libyaml-dev libsqlite3-dev libcjson-dev
	libcurl4-openssl-dev libcmocka-dev python3-pytest python3-yaml git openssl
	slurm-wlm munge zsh chromium python3-pil dpkg-dev file man-db lintian clang libclang-rt-14-dev)
zl_install_deps() {
	local missing=() p
	for p in "${zl_packages[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "zlbench: missing Debian packages: ${missing[*]}" >&2
		echo "zlbench: install them with: sudo apt-get install -y ${missing[*]}" >&2
		return 2
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
