# Sourced by scripts/serve and scripts/test: make .venv and install the project into it.
# Usage: ensure_venv EXTRAS   (e.g. "" or "dev"); reinstalls only when pyproject.toml changed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"

ensure_venv() {
    local extras="$1"
    local python="${PYTHON:-python3}"
    if [ ! -x "$VENV/bin/python" ]; then
        echo "creating $VENV" >&2
        "$python" -m venv "$VENV"
    fi
    local spec="$ROOT"
    [ -n "$extras" ] && spec="$ROOT[$extras]"
    local stamp="$VENV/.installed-${extras:-base}"
    local want
    want="$(sha256sum < "$ROOT/pyproject.toml" | cut -d' ' -f1)"
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        echo "installing wizard-online${extras:+[$extras]} into .venv" >&2
        "$VENV/bin/python" -m pip install --quiet --upgrade pip >&2
        "$VENV/bin/python" -m pip install --quiet -e "$spec" >&2
        echo "$want" > "$stamp"
    fi
}
