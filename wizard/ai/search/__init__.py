"""The search: determinized search (PIMC), the master bot's brain.

- `pimc`: values of every candidate over sampled worlds, and `SearchAgent`;
- `budget`: how much the master searches and how far it trusts OI, by bot version;
- `worlds`: deals of the hidden cards consistent with what a seat knows;
- `rollout`: the rest of a round played out fast on `wizard.engine.GameCore`;
- `prior`: OI's values, blended with the searched ones for the master;
- `inference`: worlds weighted by how well they explain the other seats' bids
  (and, with `Evidence`, their card plays: `plays`);
- `plays`: the likelihood of the other seats' card plays under the heuristic;
- `table`: how much the master trusts OI over its search, read from how the others play;
- `refine`: worlds walked by card swaps toward hands that explain the heuristic's bids and
  plays (master v6, where the table reads like the heuristic);
- `oi_rollout`: rollouts with OI bidding and playing for the other seats (master v9; v10
  averages them with the heuristic's in the same worlds);
- `oi_plays`: the likelihood of the card plays under OI's play (measured, not used by a
  bot: docs/measurements/ai.md).
"""

from __future__ import annotations

from .budget import (
    DEFAULT_BUDGET,
    EARLIER_PRIOR_WEIGHT,
    GAME_PRIOR_WEIGHT,
    PRIOR_WEIGHT,
    TABLE_PRIOR_WEIGHT,
    V3_BUDGET,
    V6_BUDGET,
    V7_BUDGET,
    V8_BUDGET,
    V9_BUDGET,
    Budget,
    master_budget,
    master_prior_weight,
)
from .pimc import (
    BidValue,
    Scorer,
    SearchAgent,
    action_values,
    bid_values,
    blend,
    card_values,
    pick,
    trump_values,
)
from .prior import blended_values, load_prior, master_prior
from .table import PriorWeight, TableWeight

__all__ = ["DEFAULT_BUDGET", "EARLIER_PRIOR_WEIGHT", "GAME_PRIOR_WEIGHT", "PRIOR_WEIGHT",
           "TABLE_PRIOR_WEIGHT", "V3_BUDGET", "V6_BUDGET", "V7_BUDGET", "V8_BUDGET", "V9_BUDGET",
           "BidValue", "Budget",
           "PriorWeight", "Scorer", "SearchAgent", "TableWeight",
           "action_values", "bid_values", "blend", "blended_values", "card_values", "load_prior",
           "master_budget", "master_prior", "master_prior_weight", "pick", "trump_values"]
