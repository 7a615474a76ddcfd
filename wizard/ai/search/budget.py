"""How much the master may search, bot version by bot version, and how far it trusts OI.

A `Budget` is a number of worlds and the ways they are drawn and played out,
never a time: the same observation, budget and seed give the same values on
any machine (`wizard.ai.search.pimc`). `master_budget` and `master_prior_weight`
give a stored master bot's settings from its bot version, so a game replays
with the bot it was played with.

>>> master_budget(32, 1) == Budget(worlds=32)
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .inference import BID_TEMPERATURE, MIN_ESS
from .plays import PLAY_ERROR
from .table import PriorWeight, TableWeight, game_reading, heuristic_belief

if TYPE_CHECKING:
    from wizard.engine import Observation

#: the weight of a prior's estimate in `blend` (0: the plain search, 1: the prior alone):
#: master's from bot version 6 (docs/measurements/ai.md#masters-prior-weight-against-oi)
PRIOR_WEIGHT = 0.8
#: master's weight up to bot version 5
EARLIER_PRIOR_WEIGHT = 0.5
#: master's from bot version 7: read from the table, `EARLIER_PRIOR_WEIGHT` where the other
#: seats play like the search's heuristic rollouts, `PRIOR_WEIGHT` where they do not
#: (`wizard.ai.search.table`; docs/measurements/ai.md#reading-the-table)
TABLE_PRIOR_WEIGHT = TableWeight(low=EARLIER_PRIOR_WEIGHT, high=PRIOR_WEIGHT, prior=0.2)
#: master's from bot version 10 (v8): read over the game's finished rounds too, and OI's
#: values at 0.3 where the table reads like the heuristic (docs/measurements/ai.md, section
#: "Trusting the refined search, and reading the table over the game")
GAME_PRIOR_WEIGHT = TableWeight(low=0.3, high=PRIOR_WEIGHT, prior=0.2, game=True)
#: `Budget.refine` applies where OI's weight read from the table (`TABLE_PRIOR_WEIGHT`, with
#: `Budget.whole_game` over the game's finished rounds too) is at most this: the other
#: seats' plays read like the heuristic's
HEURISTIC_TABLE = 0.6
#: the table reading that gates the swaps from bot version 10 (`Budget.whole_game`)
GAME_REFINE_GATE = replace(TABLE_PRIOR_WEIGHT, game=True)
#: the heuristic's model of a bid and of a play where the worlds are refined: the share
#: left to other choices (docs/measurements/ai.md#the-hidden-cards-ceiling-and-card-swaps-master-v6)
REFINE_ERROR = 0.05
#: the tempering floor of the refined worlds' starting deals
REFINE_MIN_ESS = 0.03


@dataclass(frozen=True, slots=True)
class Budget:
    """How much a decision may search: ``worlds`` sampled deals, one rollout per candidate each.

    ``bid_window``: only bids within this many tricks of the heuristic's estimate
    are searched (``None``: every legal bid). ``inference``: the worlds are
    weighted by how likely the other seats' visible bids are under OI's bidding
    at this softmax temperature in points (`wizard.ai.search.inference`; needs
    the OI network passed to `action_values`), chosen among ``worlds ×
    oversample`` candidates; ``None``: uniform worlds. ``plays``: with
    ``inference``, the other seats' card plays weigh the worlds too, under the
    heuristic with this error share (`wizard.ai.search.plays`); ``min_ess``: the
    weights are tempered to keep this share of the candidates as effective
    samples (`wizard.ai.search.inference.temper`). ``refine``: with ``inference``,
    where the table reads like the heuristic (OI's weight at most `HEURISTIC_TABLE`,
    `wizard.ai.search.table`), the worlds are weighed by the heuristic's bids and plays
    instead (`REFINE_ERROR`, tempered to `REFINE_MIN_ESS`) and each walks this many
    card swaps toward the hands that explain them (`wizard.ai.search.refine`); 0: never.
    ``whole_game``: that reading counts the game's finished rounds too.
    ``oi_worlds``: where the table does not read like the heuristic (`opponents_gate`),
    the bids and cards are played out in this many of the worlds with OI for the other
    seats (`wizard.ai.search.oi_rollout`), and OI's values weigh `OI_ROLLOUT_PRIOR_WEIGHT`
    in the master's blend; 0: never. ``oi_mix``: there, the heuristic's rollouts in the
    same worlds weigh this share of those values first (two models of the other seats:
    OI's and the heuristic's); 0: OI's alone.
    ``bid_spread``: the
    older fit of the worlds to the heuristic's trick estimate (measured: no
    gain). Raises `ValueError` for fewer than one world, a negative window, or a
    spread, temperature or oversample that is not positive.
    """

    worlds: int = 32
    bid_window: int | None = 3
    bid_spread: float | None = None
    inference: float | None = None
    oversample: int = 4
    plays: float | None = None
    min_ess: float = MIN_ESS
    refine: int = 0
    whole_game: bool = False
    oi_worlds: int = 0
    oi_mix: float = 0.0

    def __post_init__(self) -> None:
        if type(self.worlds) is not int or self.worlds < 1:
            raise ValueError(f"a search budget needs at least 1 world, got {self.worlds!r}")
        if self.bid_window is not None and self.bid_window < 0:
            raise ValueError(f"bid_window must be >= 0 or None, got {self.bid_window!r}")
        if self.bid_spread is not None and not self.bid_spread > 0.0:
            raise ValueError(f"bid_spread must be > 0 or None, got {self.bid_spread!r}")
        if self.inference is not None and not self.inference > 0.0:
            raise ValueError(f"inference must be > 0 or None, got {self.inference!r}")
        if self.plays is not None and not 0.0 < self.plays < 1.0:
            raise ValueError(f"plays must be within (0, 1) or None, got {self.plays!r}")
        if not 0.0 <= self.min_ess <= 1.0:
            raise ValueError(f"min_ess must be within 0-1, got {self.min_ess!r}")
        if type(self.oversample) is not int or self.oversample < 1:
            raise ValueError(f"oversample must be an integer >= 1, got {self.oversample!r}")
        if type(self.refine) is not int or self.refine < 0:
            raise ValueError(f"refine must be an integer >= 0, got {self.refine!r}")
        if type(self.oi_worlds) is not int or self.oi_worlds < 0:
            raise ValueError(f"oi_worlds must be an integer >= 0, got {self.oi_worlds!r}")
        if not 0.0 <= self.oi_mix <= 1.0:
            raise ValueError(f"oi_mix must be within 0-1, got {self.oi_mix!r}")


#: OI's weight in the master's blend where its rollouts played the other seats with OI
#: (`Budget.oi_worlds`; docs/measurements/ai.md, "OI in the rollouts (master v9)")
OI_ROLLOUT_PRIOR_WEIGHT = 0.5
#: master v10's share of the heuristic's rollouts where OI plays the other seats
#: (`Budget.oi_mix`; docs/measurements/ai.md, "Two models of the other seats (master v10)")
OI_MIX = 0.5


def opponents_gate(observation: Observation) -> bool:
    """Whether the master's rollouts play the other seats with OI (`Budget.oi_worlds`): the
    game's finished rounds, where every hand is known (`game_reading`), say the others do
    not play like the heuristic: the belief that they do has fallen below its prior. The
    heuristic, given the hand really held, makes every play of a heuristic player (1,060 of
    1,060 measured), so the gate stays shut at such a table, where master v9 is v8.

    >>> from wizard.engine import WizardGame
    >>> opponents_gate(WizardGame(4, seed=1).observation(1))  # no round finished yet
    False
    """
    explained, informative = game_reading(observation)
    prior = GAME_PRIOR_WEIGHT.prior
    return heuristic_belief(explained, informative, prior) < prior


#: master v7's swaps a world where the table reads like the heuristic (`Budget.refine`;
#: master v6, bot version 8, walked `V6_REFINE_STEPS`)
REFINE_STEPS = 200
V6_REFINE_STEPS = 100


def master_budget(worlds: int, version: int) -> Budget:
    """The master bot's budget at ``worlds`` for a bot of ``version`` (`BotSettings.version`):
    1 searched uniform worlds; 2 weighs them by the bids (τ 5 points); 3 and later by the
    bids and the card plays (error 0.3), chosen among 8 candidates a world, tempered to
    keep a tenth of them effective (docs/measurements/ai.md#play-inference); 8 and later
    refine the worlds by `V6_REFINE_STEPS` card swaps where the table reads like the
    heuristic, 9 and later by `REFINE_STEPS`; from 10 the table is read over the game; from
    11 OI plays the other seats in the rollouts where the table reads unlike the heuristic;
    from 12 those values are the mean of OI's and the heuristic's rollouts (`OI_MIX`).

    >>> master_budget(32, 7).refine, master_budget(32, 8).refine, master_budget(32, 9).refine
    (0, 100, 200)
    >>> master_budget(32, 9).whole_game, master_budget(32, 10).whole_game
    (False, True)
    >>> master_budget(32, 10).oi_worlds, master_budget(32, 11).oi_worlds
    (0, 32)
    >>> master_budget(32, 11).oi_mix, master_budget(32, 12).oi_mix
    (0.0, 0.5)
    """
    if version <= 1:
        return Budget(worlds=worlds)
    if version == 2:
        return Budget(worlds=worlds, inference=BID_TEMPERATURE)
    return Budget(worlds=worlds, inference=BID_TEMPERATURE, plays=PLAY_ERROR, oversample=8,
                  min_ess=0.1, refine=REFINE_STEPS if version >= 9
                  else V6_REFINE_STEPS if version == 8 else 0, whole_game=version >= 10,
                  oi_worlds=worlds if version >= 11 else 0,
                  oi_mix=OI_MIX if version >= 12 else 0.0)


#: master v3's to v5's search (bot versions 3-7): 32 worlds weighted by the other seats'
#: bids and plays
V3_BUDGET = master_budget(32, 3)
#: master v6's search (bot version 8): v3's, refined by 100 swaps at tables that read like
#: the heuristic
V6_BUDGET = master_budget(32, 8)
#: master v7's search (bot version 9): v6's with 200 swaps a world
V7_BUDGET = master_budget(32, 9)
#: master v8's search (bot version 10): v7's, the swaps' gate read over the game
V8_BUDGET = master_budget(32, 10)
#: master v9's search (bot version 11): v8's, OI in the rollouts at tables unlike the
#: heuristic
V9_BUDGET = master_budget(32, 11)
#: the master's search (v10, bot version 12): v9's, where OI plays the other seats the
#: heuristic's rollouts in the same worlds weigh half
DEFAULT_BUDGET = master_budget(32, 12)


def master_prior_weight(version: int) -> PriorWeight:
    """The weight of OI's values in a master bot's of ``version`` (`BotSettings.version`):
    `EARLIER_PRIOR_WEIGHT` up to 5, `PRIOR_WEIGHT` at 6, `TABLE_PRIOR_WEIGHT` from 7,
    `GAME_PRIOR_WEIGHT` from 10.

    >>> master_prior_weight(5), master_prior_weight(6)
    (0.5, 0.8)
    >>> master_prior_weight(9) == TABLE_PRIOR_WEIGHT, master_prior_weight(10).game
    (True, True)
    """
    if version <= 5:
        return EARLIER_PRIOR_WEIGHT
    if version == 6:
        return PRIOR_WEIGHT
    return TABLE_PRIOR_WEIGHT if version <= 9 else GAME_PRIOR_WEIGHT


__all__ = ["DEFAULT_BUDGET", "EARLIER_PRIOR_WEIGHT", "GAME_PRIOR_WEIGHT", "GAME_REFINE_GATE",
           "HEURISTIC_TABLE", "OI_MIX", "OI_ROLLOUT_PRIOR_WEIGHT", "PRIOR_WEIGHT", "REFINE_ERROR",
           "REFINE_MIN_ESS", "REFINE_STEPS", "TABLE_PRIOR_WEIGHT", "V3_BUDGET", "V6_BUDGET",
           "V6_REFINE_STEPS", "V7_BUDGET", "V8_BUDGET", "V9_BUDGET", "Budget", "master_budget",
           "master_prior_weight", "opponents_gate"]
