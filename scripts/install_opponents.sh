#!/usr/bin/env bash
# Install the opponent engines that scripts/match.py plays Basilisk against,
# plus python-chess, which the match and EPD scripts drive them with.
#
# Idempotent; run as root (apt-get). Safe to run on every CI start: each step
# is skipped when its result is already present.
#
# What it leaves, and how each opponent is started (see also --help of
# scripts/match.py):
#   stockfish   /usr/games/stockfish                     (UCI)
#   fairymax    /usr/games/fairymax                      (xboard)
#   hoichess    /usr/games/hoichess                      (xboard)
#   sunfish     /usr/local/bin/sunfish-uci               (UCI, CPython)
#               /usr/local/bin/sunfish-uci-pypy          (UCI, same code under pypy3, ~3x faster)
#
# Debian installs the engines into /usr/games, which is not on every PATH, so
# use the full paths above.
#
# sunfish (PyPI) pins chess==1.9.4 although its UCI entry point never imports
# chess; it is installed into its own venv so that pin cannot fight the
# project's own python-chess.
set -euo pipefail

APT_PACKAGES=(stockfish fairymax hoichess pypy3)
SUNFISH_VENV=/opt/sunfish
BIN_DIR=/usr/local/bin
PYTHON=${PYTHON:-python3}

log() { echo "[install_opponents] $*"; }

# (No `cmd | grep -q` here: under pipefail, grep quitting early makes the
# writer die of SIGPIPE and the test fail at random.)
apt_installed() {
    [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]
}

apt_known() {
    # True when the package lists already offer a candidate for $1.
    local policy
    policy=$(apt-cache policy "$1" 2>/dev/null)
    [[ "$policy" == *"Candidate: "* && "$policy" != *"Candidate: (none)"* ]]
}

install_apt_packages() {
    local missing=() pkg
    for pkg in "${APT_PACKAGES[@]}"; do
        apt_installed "$pkg" || missing+=("$pkg")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        log "apt packages already installed: ${APT_PACKAGES[*]}"
        return
    fi
    for pkg in "${missing[@]}"; do
        if ! apt_known "$pkg"; then
            log "apt-get update (no candidate for $pkg yet)"
            apt-get update -qq
            break
        fi
    done
    log "apt-get install ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

install_sunfish() {
    if [ ! -x "$SUNFISH_VENV/bin/sunfish-uci" ]; then
        log "creating $SUNFISH_VENV and installing sunfish from PyPI"
        "$PYTHON" -m venv "$SUNFISH_VENV"
        "$SUNFISH_VENV/bin/pip" install -q --disable-pip-version-check sunfish
    else
        log "sunfish already in $SUNFISH_VENV"
    fi
}

write_sunfish_wrappers() {
    # sunfish.py sits next to its sunfish_ui package in the venv's
    # site-packages; running that file directly is what lets pypy3 use it.
    local site
    site=$("$SUNFISH_VENV/bin/python" -c 'import sunfish, os; print(os.path.dirname(sunfish.__file__))')
    printf '#!/bin/sh\nexec %s "$@"\n' "$SUNFISH_VENV/bin/sunfish-uci" > "$BIN_DIR/sunfish-uci"
    printf '#!/bin/sh\nexec pypy3 %s "$@"\n' "$site/sunfish.py" > "$BIN_DIR/sunfish-uci-pypy"
    chmod 755 "$BIN_DIR/sunfish-uci" "$BIN_DIR/sunfish-uci-pypy"
    log "wrote $BIN_DIR/sunfish-uci and $BIN_DIR/sunfish-uci-pypy"
}

install_python_chess() {
    if "$PYTHON" -c 'import chess.engine' 2>/dev/null; then
        log "python-chess already importable by $PYTHON"
    else
        log "pip install chess (python-chess, for scripts/)"
        "$PYTHON" -m pip install -q --disable-pip-version-check chess
    fi
}

check_engines() {
    local exe
    for exe in /usr/games/stockfish /usr/games/fairymax /usr/games/hoichess \
               "$BIN_DIR/sunfish-uci" "$BIN_DIR/sunfish-uci-pypy"; do
        [ -x "$exe" ] || { log "MISSING: $exe"; exit 1; }
    done
    log "ready: stockfish fairymax hoichess sunfish-uci sunfish-uci-pypy"
}

if [ "$(id -u)" -ne 0 ]; then
    log "run as root: it installs Debian packages and writes to $SUNFISH_VENV and $BIN_DIR"
    exit 1
fi
install_apt_packages
install_sunfish
write_sunfish_wrappers
install_python_chess
check_engines
