#!/usr/bin/env bash
# Makes sure a JDK 17 (java, javac, jcmd) is installed: the capture, watch
# and trigger tests start real JVMs and compare with the JVM's own
# `jcmd GC.class_histogram`. Installs Debian's openjdk-17-jdk-headless when
# no JDK 17 is there, and prints the JDK's home. (A JDK 25 under
# /usr/lib/jvm is used too when present; it is not installed.)
set -euo pipefail
find_jdk17() {
	local h
	for h in /usr/lib/jvm/*; do
		[ -x "$h/bin/javac" ] && [ -x "$h/bin/jcmd" ] && [ -f "$h/release" ] || continue
		grep -qE '^JAVA_VERSION="(1\.)?17[."]' "$h/release" && { echo "$h"; return 0; }
	done
	return 1
}
if h=$(find_jdk17); then
	echo "$h"
	exit 0
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openjdk-17-jdk-headless >/dev/null 2>&1; then
	$sudo apt-get update -qq >/dev/null 2>&1 || true
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openjdk-17-jdk-headless >/dev/null
fi
find_jdk17
