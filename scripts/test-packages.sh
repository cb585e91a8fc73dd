#!/usr/bin/env bash
# The Debian packages the tests need that this machine lacks, one a line (setup.sh --test installs
# them): Chromium for the end-to-end tests, the CJK and DejaVu fonts that figures and screenshots
# use, poppler's readers of exported PDFs, pytest for training/tests and Pillow to read animations
# back (test/unit/host/animation.test.ts). Videos are read back by Chromium's own player
# (test/e2e/export-video.test.ts): ffmpeg and the 79 packages it brings took 24 s of a fresh
# machine's setup.
set -euo pipefail
# Installed, not only known to dpkg: `dpkg -s` also answers 0 for a package removed with its
# configuration files left (status "rc"), as fonts-noto-cjk is after `apt-get remove`, and setup
# then skipped it.
installed() { [[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" == ii* ]]; }
[ -x /usr/bin/chromium ] || echo chromium
installed fonts-noto-cjk || echo fonts-noto-cjk
installed fonts-dejavu-core || echo fonts-dejavu-core
command -v pdftoppm >/dev/null 2>&1 || echo poppler-utils
installed python3-pytest || echo python3-pytest
installed python3-pil || echo python3-pil
