#!/usr/bin/env bash
# Train the OI agent's networks as shipped in models/ (one core, ~30-40 minutes):
#   ./scripts/train_oi.sh [OUT_DIR]         (default runs/oi; installs into models/)
# WIZARD_PYTHON=/path/to/python uses an existing environment with the train extra
# instead of setting up .venv. Extra wizard-train flags go in OI_FLAGS.
set -euo pipefail
source "$(dirname "$0")/_venv.sh"
OUT="${1:-runs/oi}"
if [ -n "${WIZARD_PYTHON:-}" ]; then
    PY="$WIZARD_PYTHON"
else
    ensure_venv "train"
    PY="$VENV/bin/python"
fi
cd "$ROOT"
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
# shellcheck disable=SC2086
exec nice -n 10 "$PY" -m wizard train oi \
    --games 4000 --bootstrap-games 300 --games-per-epoch 150 --heldout-games 300 \
    --players 3,4,5,6 --hidden 64,32 --lr 0.003 --lr-decay 0.92 --exploration 0.05 \
    --heuristic-opponents 0.2 --seed 1 --out "$OUT" --install models ${OI_FLAGS:-}
