#!/usr/bin/env bash
# Train the learned policy by expert iteration with the net at the table (docs/policy.md):
#   1. from the first shipped policy (models/default-v1.onnx, which imitated the heuristic),
#      the net plays half the seats against heuristics and OI; its card decisions are
#      labelled by OI's choice in its place, its tricks head learns from its own games;
#   2. the same, widened to 512,512 and reading the card-sense features (both start as
#      the same function), four passes over the data a chunk;
# then export (with the parity check), duplicate evaluations and the model card.
# About 75 minutes of training on 2 cores; run it in the background:
#   nice scripts/train_expert.sh > runs/expert.log 2>&1 &
#   OUT=runs/x FIRST_GAMES=200 SECOND_GAMES=200 EVAL_GAMES=40 scripts/train_expert.sh  # a try
# Each stage resumes from its checkpoint when run again. Needs the train extra.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
OUT="${OUT:-runs/expert}"
START="${START:-models/default-v1.onnx}"
FIRST_GAMES="${FIRST_GAMES:-10000}"
SECOND_GAMES="${SECOND_GAMES:-16000}"
EVAL_GAMES="${EVAL_GAMES:-2000}"
WORKERS="${WORKERS:-2}"
JOBS="${JOBS:-2}"
MODELS="${MODELS:-$OUT/models}"
mkdir -p "$OUT/models" "$MODELS"
started=$(date +%s)

stage() {  # stage DIR ARGS...: run (or resume) one stage into DIR
    local dir="$1"
    shift
    local resume=()
    [ -f "$dir/checkpoint/policy.json" ] && resume=(--resume)
    "$PY" -m wizard train imitate "$@" --out "$dir" "${resume[@]}"
}
TABLE=(--teacher oi --learner-seats 0.5 --opponents heuristic,oi --keep-plays 1.0
       --workers "$WORKERS" --lr 3e-4 --eval-games 400)
echo "== 1: the net at the table, OI's choices ($FIRST_GAMES games)" >&2
stage "$OUT/first" --init "$START" --games "$FIRST_GAMES" --seed 3 --eval-every 2000 "${TABLE[@]}"
echo "== 2: widened, with card sense ($SECOND_GAMES games)" >&2
stage "$OUT/second" --init "$OUT/first/checkpoint" --widen 512,512 --card-sense --epochs 4 \
    --games "$SECOND_GAMES" --seed 5 --eval-every 2000 "${TABLE[@]}"
"$PY" -c 'import sys; from pathlib import Path; from wizard.training.progress import plot_runs
plot_runs([Path(p) for p in sys.argv[2:]], Path(sys.argv[1]), "expert iteration: OI at the table")' \
    "$OUT/learning_curve.png" "$OUT/first" "$OUT/second"

echo "== export and evaluation" >&2
"$PY" -m wizard export "$OUT/second/checkpoint" --out "$OUT/models/default.onnx"
cp models/oi_*.onnx models/oi_*.json "$OUT/models/"  # the OI opponent's networks
evaluate() {  # evaluate NAME AGENTS GAMES: one JSON result in $OUT/eval_NAME.json (seed 11)
    WIZARD_MODELS_DIR="$OUT/models" "$PY" -m wizard evaluate --agents "$2" --games "$3" \
        --seed 11 --jobs "$JOBS" --json --quiet > "$OUT/eval_$1.json"
}
evaluate vs_3_heuristics model,heuristic,heuristic,heuristic "$EVAL_GAMES"
evaluate 3_players model,heuristic,heuristic "$(( EVAL_GAMES / 2 ))"
evaluate 5_players model,heuristic,heuristic,heuristic,heuristic "$(( EVAL_GAMES / 2 ))"
evaluate 6_players model,heuristic,heuristic,heuristic,heuristic,heuristic "$(( EVAL_GAMES / 2 ))"
evaluate vs_3_random model,random,random,random "$(( EVAL_GAMES / 2 ))"
evaluate vs_oi model,oi,model,oi "$(( EVAL_GAMES / 2 ))"
"$PY" - "$OUT" "$(( $(date +%s) - started ))" "$FIRST_GAMES" "$SECOND_GAMES" <<'EOF'
import json, sys
from pathlib import Path
out, seconds, first, second = sys.argv[1:5]
runs = {}
for path in sorted(Path(out).glob("eval_*.json")):
    result = json.loads(path.read_text())
    model = result["agents"][0]
    mine = [a for a in result["agents"] if a["name"] == model["name"]]  # model,oi,model,oi: 2
    others = [a for a in result["agents"] if a["name"] != model["name"]]
    mean_others = sum(a["mean"] for a in others) / len(others)
    mean_mine = sum(a["mean"] for a in mine) / len(mine)
    runs[path.stem[5:]] = {
        "command": f"wizard evaluate --agents {','.join(a['name'] for a in result['agents'])} "
                   f"--games {result['games']} --seed 11",
        "games": result["games"], "model": model,
        "others_mean": round(mean_others, 2), "margin": round(mean_mine - mean_others, 2),
        "intervals_apart": model["ci95"][0] > max(a["ci95"][1] for a in others),
    }
history = json.loads((Path(out) / "second" / "checkpoint" / "policy.json").read_text())
trained = sum(s.get("seconds", 0) for s in history["meta"]["training"] if "seconds" in s)
card = {"evaluation": runs, "shipped_stage": "second",
        "recipe": f"scripts/train_expert.sh (FIRST_GAMES={first} SECOND_GAMES={second})",
        "training_seconds": int(trained), "this_script_run_seconds": int(seconds),
        "machine": "2 shared cores, no accelerator"}
(Path(out) / "card_extra.json").write_text(json.dumps(card, indent=2))
print(json.dumps({k: v["margin"] for k, v in runs.items()}))
EOF
"$PY" -m wizard export "$OUT/second/checkpoint" --out "$OUT/models/default.onnx" \
    --card "$OUT/card_extra.json"
if [ "$MODELS" != "$OUT/models" ]; then
    cp "$OUT/models/default.onnx" "$OUT/models/default.json" "$MODELS/"
fi
echo "wrote $MODELS/default.onnx in $(( $(date +%s) - started )) s" >&2
