#!/usr/bin/env bash
# Train the learned policy by expert iteration with the net at the table (docs/policy.md):
#   1. from the first shipped policy (models/default-v1.onnx, which imitated the heuristic),
#      the net plays half the seats against heuristics and OI; its card decisions are
#      labelled by OI's choice in its place, its tricks head learns from its own games;
#   2. the same, widened to 512,512 and reading the card-sense features (both start as
#      the same function), four passes over the data a chunk;
#   3. the same with a card head of 64 units (docs/policy.md), learning rate 2e-4,
#      THIRD_GAMES games (0: no third stage, the recipe of v2, models/default-v2.onnx;
#      the recipe of v3, models/default-v3.onnx, ends here with FOURTH_GAMES=0);
#   4. from the third stage's exported file, the net at the table plays its cards one card
#      ahead (LOOKAHEAD), learning rate 1e-4, FOURTH_GAMES games (v4);
#   5. the fourth stage's net unchanged, with a tricks head of its own for the rows after a
#      card, fitted on FIFTH_GAMES games (wizard train after-head; 0: none, the recipe of
#      v4), with a ReLU layer of AFTER_HIDDEN units beside its linear map (0: none, the
#      recipe of v5); the cards one card ahead through it at AFTER_LOOKAHEAD (v6,
#      models/default.onnx);
# then export (with the parity check; the model card asks for the cards one card ahead,
# LOOKAHEAD points per logit, or AFTER_LOOKAHEAD after the fifth stage, wizard/ai/lookahead.py),
# duplicate evaluations and the card.
# About four hours of training on 2 cores; run it in the background:
#   nice scripts/train_expert.sh > runs/expert.log 2>&1 &
#   OUT=runs/x FIRST_GAMES=200 SECOND_GAMES=200 THIRD_GAMES=200 FOURTH_GAMES=200 \
#     FIFTH_GAMES=200 EVAL_GAMES=40 scripts/train_expert.sh
# Each stage resumes from its checkpoint when run again. Needs the train extra.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
OUT="${OUT:-runs/expert}"
START="${START:-models/default-v1.onnx}"
FIRST_GAMES="${FIRST_GAMES:-10000}"
SECOND_GAMES="${SECOND_GAMES:-16000}"
THIRD_GAMES="${THIRD_GAMES:-32000}"
FOURTH_GAMES="${FOURTH_GAMES:-8000}"
FIFTH_GAMES="${FIFTH_GAMES:-4000}"
LOOKAHEAD="${LOOKAHEAD:-20}"  # the served cards one card ahead (wizard export --card-lookahead)
AFTER_LOOKAHEAD="${AFTER_LOOKAHEAD:-10}"  # the same through the fifth stage's head
AFTER_HIDDEN="${AFTER_HIDDEN:-64}"  # units of the fifth stage's ReLU layer (0: linear, v5)
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
SHIPPED=second
if [ "$THIRD_GAMES" -gt 0 ]; then
    echo "== 3: a card head ($THIRD_GAMES games)" >&2
    stage "$OUT/third" --init "$OUT/second/checkpoint" --card-head 64 --epochs 4 \
        --games "$THIRD_GAMES" --seed 9 --eval-every 4000 "${TABLE[@]}" --lr 2e-4
    SHIPPED=third
fi
if [ "$THIRD_GAMES" -gt 0 ] && [ "$FOURTH_GAMES" -gt 0 ]; then
    echo "== 4: one card ahead at the table ($FOURTH_GAMES games)" >&2
    [ -f "$OUT/third.onnx" ] || "$PY" -m wizard export "$OUT/third/checkpoint" \
        --out "$OUT/third.onnx" --card-lookahead "$LOOKAHEAD"
    stage "$OUT/fourth" --init "$OUT/third.onnx" --card-lookahead "$LOOKAHEAD" --epochs 4 \
        --games "$FOURTH_GAMES" --seed 23 --eval-every 4000 "${TABLE[@]}" --lr 1e-4
    SHIPPED=fourth
    if [ "$FIFTH_GAMES" -gt 0 ]; then
        echo "== 5: a tricks head after the card ($FIFTH_GAMES games)" >&2
        resume=()
        [ -f "$OUT/fifth/checkpoint/policy.json" ] && resume=(--resume)
        "$PY" -m wizard train after-head --init "$OUT/fourth/checkpoint" --out "$OUT/fifth" \
            --games "$FIFTH_GAMES" --seed 101 --card-lookahead "$AFTER_LOOKAHEAD" \
            --hidden-units "$AFTER_HIDDEN" --workers "$WORKERS" "${resume[@]}"
        SHIPPED=fifth
        LOOKAHEAD="$AFTER_LOOKAHEAD"
    fi
fi
"$PY" -c 'import sys; from pathlib import Path; from wizard.training.progress import plot_runs
plot_runs([Path(p) for p in sys.argv[2:]], Path(sys.argv[1]), "expert iteration: OI at the table")' \
    "$OUT/learning_curve.png" "$OUT/first" "$OUT/second" \
    $([ "$SHIPPED" != second ] && echo "$OUT/third") \
    $([ "$SHIPPED" = fourth ] || [ "$SHIPPED" = fifth ] && echo "$OUT/fourth") \
    $([ "$SHIPPED" = fifth ] && echo "$OUT/fifth")

echo "== export and evaluation" >&2
"$PY" -m wizard export "$OUT/$SHIPPED/checkpoint" --out "$OUT/models/default.onnx" \
    --card-lookahead "$LOOKAHEAD"
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
"$PY" -m wizard export "$OUT/$SHIPPED/checkpoint" --out "$OUT/models/default.onnx" \
    --card-lookahead "$LOOKAHEAD" --evaluations "$OUT" --note "shipped_stage=$SHIPPED" --note "recipe=scripts/train_expert.sh \
(FIRST_GAMES=$FIRST_GAMES SECOND_GAMES=$SECOND_GAMES THIRD_GAMES=$THIRD_GAMES FOURTH_GAMES=$FOURTH_GAMES \
FIFTH_GAMES=$FIFTH_GAMES AFTER_HIDDEN=$AFTER_HIDDEN)" \
    --note "this_script_run_seconds=$(( $(date +%s) - started ))" \
    --note "machine=2 shared cores, no accelerator"
if [ "$MODELS" != "$OUT/models" ]; then
    cp "$OUT/models/default.onnx" "$OUT/models/default.json" "$MODELS/"
fi
echo "wrote $MODELS/default.onnx in $(( $(date +%s) - started )) s" >&2
