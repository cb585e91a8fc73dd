#!/usr/bin/env bash
# Debian's Chromium with every --disable-features=… it is given merged into one. Chromium keeps
# only the last of a repeated switch, so the e2e files' own list (CHROMIUM_ARGS in
# chromium.ts) would otherwise drop the one Playwright passes before it.
args=()
off=()
for a in "$@"; do
  case $a in
    --disable-features=*) off+=("${a#--disable-features=}") ;;
    *) args+=("$a") ;;
  esac
done
IFS=,
exec /usr/bin/chromium "${args[@]}" "--disable-features=${off[*]}"
