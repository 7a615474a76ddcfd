"""OI: the Oh Hell bot's strategy for Wizard (per-card win probabilities from two networks,
bid = argmax expected points, play = argmax P(make the bid)).

- `agent`: `OIAgent`, its networks (`load_networks`) and the values it plays by;
- `features`: the situation and per-card features the networks read.
"""

from __future__ import annotations

from .agent import (
    IMMEDIATE_KIND,
    IMMEDIATE_NAME,
    OVERALL_KIND,
    OVERALL_NAME,
    OIAgent,
    OIDecision,
    OnnxProbabilityNet,
    ProbabilityNet,
    expected_bid_scores,
    load_networks,
    make_oi_agent,
    play_values,
    score_table,
    trick_distributions,
)

__all__ = [
    "IMMEDIATE_KIND", "IMMEDIATE_NAME", "OVERALL_KIND", "OVERALL_NAME", "OIAgent", "OIDecision",
    "OnnxProbabilityNet", "ProbabilityNet", "expected_bid_scores", "load_networks",
    "make_oi_agent", "play_values", "score_table", "trick_distributions"
]
