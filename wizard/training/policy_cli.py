"""Arguments of ``wizard train imitate``, ``after-head`` and ``ppo`` (torch-free).

The handlers import their trainer (and so torch) only when they run, so
``wizard --help`` works without the ``train`` extra.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .cli_args import command_line, int_list, points_per_logit, units

_hidden = int_list("hidden sizes", "256,256", 1)


def _common(parser: argparse.ArgumentParser, workers_help: str) -> None:
    parser.add_argument("--out", type=Path, required=True,
                        help="run directory: checkpoint/, metrics.jsonl, learning_curve.png")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in --out from its checkpoint")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", type=int, required=True, help="training games in all")
    parser.add_argument("--lr", type=float, default=None, help="learning rate")
    parser.add_argument("--eval-every", type=int, default=5000,
                        help="games between duplicate evaluations against 3 heuristics")
    parser.add_argument("--eval-games", type=int, default=400)
    parser.add_argument("--workers", type=int, default=1, help=workers_help)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def register(trainers: Any) -> None:
    """Add the policy trainers to ``wizard train``."""
    imitate = trainers.add_parser(
        "imitate", help="stage (a): imitate a teacher agent; the tricks head learns bid outcomes",
        description="Imitation of a teacher (any agent name) over games played in worker "
                    "processes; bids by expected score from the tricks head.")
    _common(imitate, "processes that play the teacher's games and the evaluations")
    imitate.add_argument("--teacher", default="heuristic", help="agent name (make_agent)")
    imitate.add_argument("--hidden", type=_hidden, default=(256, 256),
                         help="hidden layer sizes, e.g. 256,256")
    imitate.add_argument("--batch", type=int, default=512)
    imitate.add_argument("--epochs", type=float, default=2.0,
                         help="passes over each chunk's rows (sampled from a replay buffer)")
    imitate.add_argument("--explore-bids", type=float, default=0.3,
                         help="chance a seat bids near, not at, the teacher's bid")
    imitate.add_argument("--keep-plays", type=float, default=0.35,
                         help="share of card decisions kept as rows")
    imitate.add_argument("--labeller", default=None,
                         help="expert iteration: an agent whose values (search, oi) label the "
                              "kept card decisions as soft targets, and whose choice is played")
    imitate.add_argument("--soft-temperature", type=float, default=5.0,
                         help="of the labeller's soft targets, in round points")
    imitate.add_argument("--cost-weight", type=float, default=0.0,
                         help="weigh each card row by 1 + this x the spread of the teacher's "
                              "(or labeller's) values / 10 points: costly choices count more "
                              "(needs action_scores: oi, search)")
    imitate.add_argument("--card-head", type=units, default=0, metavar="UNITS",
                         help="a card head of this many units a card (e.g. 64): one small "
                              "network shared by the 60 cards scores each card to play; added "
                              "to an --init net with zero output, the same function to start "
                              "from (needs card sense)")
    imitate.add_argument("--widen", type=_hidden, default=(),
                         help="with --init: widen its hidden layers to these sizes, the same "
                              "function to start from (Net2Net), e.g. 512,512")
    imitate.add_argument("--card-sense", action="store_true",
                         help="the net also reads the card-sense features (which cards are "
                              "higher, beaten, trump, legal); added to an --init net with "
                              "zero weights, the same function to start from")
    imitate.add_argument("--card-lookahead", type=points_per_logit, default=0.0, metavar="POINTS",
                         help="the learner at the table and the evaluations play their cards "
                              "one card ahead, as the exported policy does with wizard export "
                              "--card-lookahead (the model agent; 0: by the policy's "
                              "probabilities, as the hard bots play)")
    imitate.add_argument("--after-card-rows", action="store_true",
                         help="the tricks head also learns each kept card decision's features "
                              "after the card played, as --card-lookahead asks it (the policy "
                              "head does not learn from them)")
    imitate.add_argument("--explore-cards", type=float, default=0.0,
                         help="with --after-card-rows: the chance, at each card decision with "
                              "a choice, that a seat plays a random card (once a round), so the "
                              "tricks head also sees cards the seat would not choose")
    imitate.add_argument("--learner-seats", type=float, default=0.0,
                         help="expert iteration with the net at the table: the share of seats "
                              "it plays (at least one), its decisions labelled by --labeller")
    imitate.add_argument("--opponents", type=lambda text: tuple(text.split(",")), default=(),
                         help="agents of the learner's other seats, comma-separated "
                              "(default: the teacher)")
    imitate.add_argument("--init", type=Path, default=None,
                         help="checkpoint or exported policy (.onnx, e.g. models/default.onnx) "
                              "to start from (default: a fresh net)")
    imitate.set_defaults(handler=run_imitate)

    after = trainers.add_parser(
        "after-head", help="last stage: a tricks head of its own for the rows after a card, "
                           "which the card lookahead reads (the rest of the net unchanged)",
        description="Plays games with the --init net at the table (one card ahead), keeps "
                    "the rows after each card it plays, and fits a linear head on the frozen "
                    "trunk to the tricks the seat ended the round with.")
    after.add_argument("--out", type=Path, required=True,
                       help="run directory: checkpoint/, metrics.jsonl, learning_curve.png")
    after.add_argument("--resume", action="store_true",
                       help="return the finished run in --out (an interrupted run leaves no "
                            "checkpoint: run it again without --resume)")
    after.add_argument("--init", type=Path, required=True,
                       help="checkpoint or exported policy (.onnx) whose trunk the head reads")
    after.add_argument("--games", type=int, default=4000)
    after.add_argument("--seed", type=int, default=101)
    after.add_argument("--card-lookahead", type=points_per_logit, default=10.0,
                       metavar="POINTS", help="points per logit of the lookahead at the table "
                                              "and in the evaluation (export with the same)")
    after.add_argument("--explore-cards", type=float, default=0.3,
                       help="chance, at each card decision with a choice, of one random card "
                            "a seat and round")
    after.add_argument("--opponents", type=lambda text: tuple(text.split(",")),
                       default=("heuristic", "oi"), help="agents of the other seats")
    after.add_argument("--hidden-units", type=units, default=0, metavar="UNITS",
                       help="a ReLU layer of this many units beside the linear head (0: none)")
    after.add_argument("--epochs", type=int, default=12)
    after.add_argument("--eval-games", type=int, default=400)
    after.add_argument("--workers", type=int, default=1,
                       help="processes that play the games and the evaluation")
    after.add_argument("--quiet", action="store_true", help="no progress bar")
    after.set_defaults(handler=run_after_head)

    ppo = trainers.add_parser(
        "ppo", help="stage (b): PPO self-play from a checkpoint (clipped objective, GAE)",
        description="PPO over VectorWizardEnv: many games stepped together, one batched "
                    "forward pass per step, opponents a mixture of the policy itself, "
                    "earlier checkpoints and the heuristic; reward the Wizard score per round.")
    _common(ppo, "processes of the periodic evaluation (self-play steps its games together "
                 "in one process, one batched forward pass per step)")
    ppo.add_argument("--init", type=Path, default=None,
                     help="checkpoint (e.g. the imitation run's) or exported policy (.onnx) "
                          "to start from")
    ppo.add_argument("--envs", type=int, default=64, help="games stepped together")
    ppo.add_argument("--rollout", type=int, default=64, help="decisions per game per update")
    ppo.add_argument("--epochs", type=int, default=3, help="PPO epochs per rollout")
    ppo.add_argument("--batch", type=int, default=1024)
    ppo.add_argument("--entropy", type=float, default=0.01)
    ppo.add_argument("--heuristic-share", type=float, default=0.4,
                     help="share of opponent seats played by the heuristic")
    ppo.add_argument("--past-share", type=float, default=0.2,
                     help="share of opponent seats played by earlier checkpoints")
    ppo.add_argument("--bid-temperature", type=float, default=0.5,
                     help="sampling temperature of the learner's bids (points / 10)")
    ppo.set_defaults(handler=run_ppo)


def _run(stage: str, train: Callable[[], Path]) -> int:
    """Run a stage; a `CheckpointError` or `ValueError` becomes exit status 2 and its message."""
    from .policy import CheckpointError

    try:
        checkpoint = train()
    except (CheckpointError, ValueError) as exc:
        print(f"wizard train {stage}: {exc}", file=sys.stderr)
        return 2
    print(f"checkpoint: {checkpoint}")
    return 0


def run_imitate(args: argparse.Namespace) -> int:
    from .imitate import ImitationConfig, train_imitation

    config = ImitationConfig(
        games=args.games, teacher=args.teacher, hidden=args.hidden,
        lr=args.lr if args.lr is not None else 1e-3, batch=args.batch, epochs=args.epochs,
        explore_bids=args.explore_bids, keep_plays=args.keep_plays,
        eval_every=args.eval_every, eval_games=args.eval_games, workers=args.workers,
        seed=args.seed, labeller=args.labeller, soft_temperature=args.soft_temperature,
        learner_seats=args.learner_seats, opponents=args.opponents, widen=args.widen,
        card_sense=args.card_sense, cost_weight=args.cost_weight, card_head=args.card_head,
        card_lookahead=args.card_lookahead, after_card_rows=args.after_card_rows,
        explore_cards=args.explore_cards)
    return _run("imitate", lambda: train_imitation(
        args.out, config, resume=args.resume, command=command_line("wizard train imitate"),
        progress=not args.quiet, init=args.init))


def run_after_head(args: argparse.Namespace) -> int:
    from .after_head import AfterHeadConfig, train_after_head

    config = AfterHeadConfig(games=args.games, seed=args.seed, card_lookahead=args.card_lookahead,
                             opponents=args.opponents, explore_cards=args.explore_cards,
                             hidden=args.hidden_units, epochs=args.epochs,
                             eval_games=args.eval_games, workers=args.workers)
    return _run("after-head", lambda: train_after_head(
        args.out, config, init=args.init, resume=args.resume,
        command=command_line("wizard train after-head"), progress=not args.quiet))


def run_ppo(args: argparse.Namespace) -> int:
    from .ppo import PpoConfig, train_ppo

    config = PpoConfig(
        games=args.games, envs=args.envs, rollout=args.rollout, epochs=args.epochs,
        batch=args.batch, lr=args.lr if args.lr is not None else 3e-4, entropy=args.entropy,
        heuristic_share=args.heuristic_share, past_share=args.past_share,
        bid_temperature=args.bid_temperature, eval_every=args.eval_every,
        eval_games=args.eval_games, workers=args.workers, seed=args.seed)
    return _run("ppo", lambda: train_ppo(
        args.out, config, init=args.init, resume=args.resume,
        command=command_line("wizard train ppo"), progress=not args.quiet))
