#!/usr/bin/env bash
# Train a policy from scratch, the recipe of the first one (v1, models/default-v1.onnx):
# imitation of the heuristic, PPO self-play, export (with the torch/onnxruntime parity
# check), duplicate evaluations, the model card. Writes $OUT/models/default.onnx, and
# copies it into MODELS when set (MODELS=models replaces the shipped policy).
#
#   scripts/train_default.sh                 # the heuristic recipe (under 2 h on 2 shared cores)
#   OUT=runs/x IMITATE_GAMES=2000 PPO_GAMES=200 EVAL_GAMES=200 scripts/train_default.sh  # a try
#   scripts/train_expert.sh                  # the shipped recipe: expert iteration from this model
#
# TEACHER plays the imitation games (default heuristic); LABELLER, when set, labels the
# kept card decisions with its values as soft targets (expert iteration). EXPERT_GAMES > 0
# adds a stage after the imitation: games of EXPERT_TEACHER labelled by the master's search.
#
# Each stage resumes from its checkpoint when run again. Needs the train extra
# (pip install '.[train]'). PYTHON defaults to .venv/bin/python; nothing is installed.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
OUT="${OUT:-runs/default}"
IMITATE_GAMES="${IMITATE_GAMES:-24000}"
PPO_GAMES="${PPO_GAMES:-5000}"
EVAL_GAMES="${EVAL_GAMES:-2000}"
WORKERS="${WORKERS:-1}"
JOBS="${JOBS:-2}"
SEED="${SEED:-1}"
MODELS="${MODELS:-$OUT/models}"
TEACHER="${TEACHER:-heuristic}"
LABELLER="${LABELLER:-}"
EXPERT_GAMES="${EXPERT_GAMES:-0}"
EXPERT_TEACHER="${EXPERT_TEACHER:-oi}"
mkdir -p "$OUT/models"
started=$(date +%s)

stage() {  # stage DIR ARGS...: run (or resume) one training stage into DIR
    local dir="$1"
    shift
    local resume=()
    [ -f "$dir/checkpoint/policy.json" ] && resume=(--resume)
    "$PY" -m wizard train "$@" --out "$dir" "${resume[@]}"
}

labels=()
[ -n "$LABELLER" ] && labels=(--labeller "$LABELLER")
echo "== imitation of $TEACHER ($IMITATE_GAMES games${LABELLER:+, labelled by $LABELLER})" >&2
stage "$OUT/imitate" imitate --games "$IMITATE_GAMES" --workers "$WORKERS" --seed "$SEED" \
    --hidden 256,256 --eval-every 5000 --eval-games 400 --teacher "$TEACHER" "${labels[@]}"
final="$OUT/imitate/checkpoint"
if [ "$EXPERT_GAMES" -gt 0 ]; then
    echo "== expert iteration: $EXPERT_TEACHER's games labelled by the master ($EXPERT_GAMES)" >&2
    stage "$OUT/expert" imitate --init "$OUT/imitate/checkpoint" --games "$EXPERT_GAMES" \
        --workers "$WORKERS" --seed "$SEED" --teacher "$EXPERT_TEACHER" --labeller search \
        --lr 3e-4 --eval-every 1000 --eval-games 400
fi
if [ "$PPO_GAMES" -gt 0 ]; then
    echo "== PPO self-play ($PPO_GAMES games)" >&2
    stage "$OUT/ppo" ppo --init "$OUT/imitate/checkpoint" --games "$PPO_GAMES" --seed "$SEED" \
        --lr 2e-4 --heuristic-share 0.5 --past-share 0.2 --eval-every 2000 --eval-games 400
    final="$OUT/ppo/checkpoint"
fi
"$PY" -c 'import sys; from pathlib import Path; from wizard.training.progress import plot_runs
plot_runs([Path(p) for p in sys.argv[2:]], Path(sys.argv[1]), "imitation, then PPO")' \
    "$OUT/learning_curve.png" "$OUT/imitate" "$OUT/ppo" "$OUT/expert"

echo "== export and evaluation" >&2
evaluate() {  # evaluate MODELS_DIR NAME AGENTS GAMES SEED: one JSON result in $OUT/eval_NAME.json
    WIZARD_MODELS_DIR="$1" "$PY" -m wizard evaluate --agents "$3" --games "$4" --seed "$5" \
        --jobs "$JOBS" --json --quiet > "$OUT/eval_$2.json"
}
margin() {  # margin NAME: the model's mean minus the other seats' mean in $OUT/eval_NAME.json
    "$PY" -c 'import json, sys; a = json.load(open(sys.argv[1]))["agents"]
print(a[0]["mean"] - sum(x["mean"] for x in a[1:]) / (len(a) - 1))' "$OUT/eval_$1.json"
}
FOUR=model,heuristic,heuristic,heuristic
# each stage on its own deals (seed 5): the better one ships; the acceptance deals (seed 11)
# are played by the shipped one only
for name in imitate ppo expert; do
    [ -f "$OUT/$name/checkpoint/policy.json" ] || continue
    "$PY" -m wizard export "$OUT/$name/checkpoint" --out "$OUT/$name/model/default.onnx"
    evaluate "$OUT/$name/model" "stage_$name" "$FOUR" "$EVAL_GAMES" 5
    echo "stage $name: $(margin "stage_$name") points per game over the heuristics" >&2
done
final="$OUT/imitate/checkpoint"
best="$(margin stage_imitate)"
for name in ppo expert; do
    if [ -f "$OUT/eval_stage_$name.json" ] && \
            "$PY" -c 'import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)' \
            "$(margin "stage_$name")" "$best"; then
        final="$OUT/$name/checkpoint"
        best="$(margin "stage_$name")"
    fi
done
echo "shipping $final" >&2
"$PY" -m wizard export "$final" --out "$OUT/models/default.onnx"
evaluate "$OUT/models" vs_3_heuristics "$FOUR" "$EVAL_GAMES" 11
evaluate "$OUT/models" 3_players model,heuristic,heuristic "$(( EVAL_GAMES / 2 ))" 11
evaluate "$OUT/models" 5_players model,heuristic,heuristic,heuristic,heuristic \
    "$(( EVAL_GAMES / 2 ))" 11
evaluate "$OUT/models" 6_players model,heuristic,heuristic,heuristic,heuristic,heuristic \
    "$(( EVAL_GAMES / 2 ))" 11
evaluate "$OUT/models" vs_3_random model,random,random,random "$(( EVAL_GAMES / 2 ))" 11
evaluate "$OUT/models" vs_oi model,oi,model,oi "$(( EVAL_GAMES / 2 ))" 11
evaluated=$(( $(date +%s) - started ))

"$PY" -m wizard export "$final" --out "$OUT/models/default.onnx" --evaluations "$OUT" \
    --note "shipped_stage=$(basename "$(dirname "$final")")" \
    --note "recipe=scripts/train_default.sh (IMITATE_GAMES=$IMITATE_GAMES PPO_GAMES=$PPO_GAMES \
TEACHER=$TEACHER LABELLER=$LABELLER EXPERT_GAMES=$EXPERT_GAMES)" \
    --note "this_script_run_seconds=$evaluated" \
    --note "machine=2 shared cores (other jobs running), no accelerator"
if [ "$MODELS" != "$OUT/models" ]; then
    mkdir -p "$MODELS"
    cp "$OUT/models/default.onnx" "$OUT/models/default.json" "$MODELS/"
fi
echo "wrote $MODELS/default.onnx in $(( $(date +%s) - started )) s" >&2
