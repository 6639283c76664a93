#!/usr/bin/env bash
# Installs the Debian packages CellHost builds and tests with. Idempotent.
set -euo pipefail
packages=(libffi-dev libutf8proc-dev pkg-config gcc g++ rustc jq time
          libchafa-dev libglib2.0-dev libpng-dev libjpeg-dev libwebp-dev libgif-dev
          libsndfile1-dev libmagic-dev tmux
          chromium                      # headless, for HTMLTranscriptTests (--format html)
          patchelf man-db zsh fish)     # .ci/install.sh and InstallTests
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
