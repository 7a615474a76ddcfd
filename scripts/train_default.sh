#!/usr/bin/env bash
# Train models/default.onnx from scratch: imitation of the heuristic, PPO self-play, export
# (with the torch/onnxruntime parity check), duplicate evaluations, the model card.
#
#   scripts/train_default.sh                 # the shipped recipe (under 2 h on 2 shared cores)
#   OUT=runs/x IMITATE_GAMES=2000 PPO_GAMES=200 EVAL_GAMES=200 scripts/train_default.sh  # a try
#
# Each stage resumes from its checkpoint when run again. Needs the train extra
# (pip install '.[train]'). PYTHON defaults to .venv/bin/python; nothing is installed.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
OUT="${OUT:-runs/default}"
IMITATE_GAMES="${IMITATE_GAMES:-40000}"
PPO_GAMES="${PPO_GAMES:-6000}"
EVAL_GAMES="${EVAL_GAMES:-2000}"
WORKERS="${WORKERS:-1}"
SEED="${SEED:-1}"
MODELS="${MODELS:-models}"
mkdir -p "$OUT/models"
started=$(date +%s)

stage() {  # stage DIR ARGS...: run (or resume) one training stage into DIR
    local dir="$1"
    shift
    local resume=()
    [ -f "$dir/checkpoint/policy.json" ] && resume=(--resume)
    "$PY" -m wizard train "$@" --out "$dir" "${resume[@]}"
}

echo "== imitation of the heuristic ($IMITATE_GAMES games)" >&2
stage "$OUT/imitate" imitate --games "$IMITATE_GAMES" --workers "$WORKERS" --seed "$SEED" \
    --hidden 256,256 --eval-every 5000 --eval-games 400
final="$OUT/imitate/checkpoint"
if [ "$PPO_GAMES" -gt 0 ]; then
    echo "== PPO self-play ($PPO_GAMES games)" >&2
    stage "$OUT/ppo" ppo --init "$OUT/imitate/checkpoint" --games "$PPO_GAMES" --seed "$SEED" \
        --eval-every 2000 --eval-games 400
    final="$OUT/ppo/checkpoint"
fi
trained=$(( $(date +%s) - started ))

echo "== export and evaluation" >&2
"$PY" -m wizard export "$final" --out "$OUT/models/default.onnx"
evaluate() {  # evaluate NAME AGENTS GAMES: one JSON result in $OUT/eval_NAME.json
    WIZARD_MODELS_DIR="$OUT/models" "$PY" -m wizard evaluate --agents "$2" --games "$3" \
        --seed 11 --json --quiet > "$OUT/eval_$1.json"
}
evaluate vs_3_heuristics model,heuristic,heuristic,heuristic "$EVAL_GAMES"
evaluate 3_players model,heuristic,heuristic "$(( EVAL_GAMES / 2 ))"
evaluate 5_players model,heuristic,heuristic,heuristic,heuristic "$(( EVAL_GAMES / 2 ))"
evaluate 6_players model,heuristic,heuristic,heuristic,heuristic,heuristic "$(( EVAL_GAMES / 2 ))"
evaluate vs_3_random model,random,random,random "$(( EVAL_GAMES / 2 ))"
evaluated=$(( $(date +%s) - started ))

"$PY" - "$OUT" "$trained" "$evaluated" "$IMITATE_GAMES" "$PPO_GAMES" <<'EOF'
import json, sys
from pathlib import Path
out, trained, evaluated, imitate, ppo = sys.argv[1:]
runs = {}
for path in sorted(Path(out).glob("eval_*.json")):
    result = json.loads(path.read_text())
    model, others = result["agents"][0], result["agents"][1:]
    mean_others = sum(a["mean"] for a in others) / len(others)
    runs[path.stem[5:]] = {
        "command": f"wizard evaluate --agents {','.join(a['name'] for a in result['agents'])} "
                   f"--games {result['games']} --seed 11",
        "games": result["games"], "model": model,
        "others_mean": round(mean_others, 2), "margin": round(model["mean"] - mean_others, 2),
        "intervals_apart": model["ci95"][0] > max(a["ci95"][1] for a in others),
    }
card = {"evaluation": runs,
        "recipe": f"scripts/train_default.sh (IMITATE_GAMES={imitate} PPO_GAMES={ppo})",
        "training_seconds": int(trained), "script_seconds": int(evaluated)}
(Path(out) / "card_extra.json").write_text(json.dumps(card, indent=2))
print(json.dumps({k: v["margin"] for k, v in runs.items()}))
EOF
"$PY" -m wizard export "$final" --out "$OUT/models/default.onnx" --card "$OUT/card_extra.json"
mkdir -p "$MODELS"
cp "$OUT/models/default.onnx" "$OUT/models/default.json" "$MODELS/"
echo "wrote $MODELS/default.onnx in $(( $(date +%s) - started )) s" >&2
