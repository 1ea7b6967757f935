#!/usr/bin/env bash
# Installs the Debian packages the test suite uses (tests skip with a message where one is missing).
set -uo pipefail
need=()
command -v wget >/dev/null 2>&1 || need+=(wget)
command -v curl >/dev/null 2>&1 || need+=(curl)
[ -d /usr/share/doc/postgresql-doc-15/html ] || need+=(postgresql-doc-15)
# the console's browser tests (node ConsoleBrowserTest) drive a headless Chromium through chromedriver
command -v chromium >/dev/null 2>&1 || need+=(chromium)
[ -x /usr/bin/chromedriver ] || need+=(chromium-driver)
if [ ${#need[@]} -gt 0 ] && [ "$(id -u)" = 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null 2>&1 || true
  apt-get install -y -qq "${need[@]}" >/dev/null 2>&1 || echo "install-test-deps: could not install ${need[*]}" >&2
fi
exit 0
