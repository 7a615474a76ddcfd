"""Play inference: weigh sampled worlds by how well they explain the other seats' card plays.

A seat's bid says what kind of hand it holds (`wizard.ai.search.inference`);
its plays say more. A seat that needed tricks and threw a low card of the led
suit probably held nothing higher; a seat that had its bid and kept its wizard
back probably holds one. Following policy-based inference for determinized
search (Rebstock et al. 2019), each observed play of this round is scored under
a model of the seat, given the hand the world says it held at that moment (its
sampled hand plus the cards it played from then on):

    log P(plays | world) = Σ_plays log P(card | hand then, trick, bid, tricks taken)

The model is the heuristic (`wizard.ai.search.rollout.heuristic_choice`, the
search's own rollout policy), softened: the seat plays the heuristic's card
with probability ``1 − error`` and any other legal card with the rest shared
equally. A play with one legal card says nothing (its likelihood is 1 in any
world). Seats whose bids the observer cannot see are left out (their "needed"
tricks are unknown).

>>> from wizard.engine import WizardGame
>>> game = WizardGame(4, seed=5)
>>> obs = game.observation(game.current_player)
>>> PlayInference(0.3).log_likelihoods(obs, [[0, 0, 0, 0]])  # nothing played yet
[0.0]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from wizard.engine import Observation, RoundResult
from wizard.engine.rules import lead_of, legal_cards_mask, trick_winner

from .rollout import heuristic_picks

#: the share of a seat's plays the model leaves to cards other than the heuristic's
#: (chosen on the placement of the hidden cards: docs/measurements/ai.md#play-inference)
PLAY_ERROR = 0.3


@dataclass(frozen=True, slots=True)
class ObservedPlay:
    """One observed play of another seat, with what it knew when it played."""

    seat: int
    card: int
    trick: tuple[int, ...]  # the cards on the table before it
    lead: int
    needed: int  # its bid minus the tricks it had taken
    later: int  # mask of this card and the seat's later plays of the round
    before: int = 0  # mask of the round's cards played before it
    wanted: tuple[int | None, ...] = ()  # per seat, bid minus tricks taken then
    played_now: tuple[bool, ...] = ()  # per seat, has a card in the trick


def observed_plays(observation: Observation) -> list[ObservedPlay]:
    """The round's plays by seats other than the observer whose bids are visible."""
    trump = observation.trump_suit.index if observation.trump_suit is not None else -1
    return _plays([c.id for c in observation.played_cards], observation.dealer,
                  observation.bids, trump, observation.player)


def finished_plays(result: RoundResult, observer: int | None) -> list[ObservedPlay]:
    """A finished round's plays by the seats other than ``observer``; each play's ``later``
    is the seat's whole hand then, as the round played out every card it dealt.

    >>> from wizard.engine import WizardGame
    >>> game = WizardGame(3, seed=2)
    >>> while not game.round_history:
    ...     _ = game.apply(game.current_player, game.legal_actions()[0])
    >>> [(p.seat, p.later == 1 << p.card) for p in finished_plays(game.round_history[0], 0)]
    [(2, True), (1, True)]
    """
    trump = result.trump_suit.index if result.trump_suit is not None else -1
    return _plays(list(result.plays), result.dealer, result.bids, trump, observer)


def _plays(played: list[int], dealer: int, bids: Sequence[int | None], trump: int,
           me: int | None) -> list[ObservedPlay]:
    n = len(bids)
    leader = (dealer + 1) % n
    tricks = [0] * n
    seen = []
    gone = 0
    for start in range(0, len(played), n):
        trick = played[start:start + n]
        now = [False] * n
        for position, card in enumerate(trick):
            seat = (leader + position) % n
            bid = bids[seat]
            if seat != me and bid is not None:
                wanted = tuple(None if b is None else b - t
                               for b, t in zip(bids, tricks, strict=True))
                before = tuple(trick[:position])
                seen.append(ObservedPlay(seat, card, before, lead_of(before),
                                         bid - tricks[seat], 0, gone, wanted, tuple(now)))
            gone |= 1 << card
            now[seat] = True
        if len(trick) == n:
            leader = (leader + trick_winner(trick, trump)) % n
            tricks[leader] += 1
    out = []
    later = [0] * n
    for play in reversed(seen):
        later[play.seat] |= 1 << play.card
        out.append(replace(play, later=later[play.seat]))
    out.reverse()
    return out


class PlayModel(Protocol):
    """A model of the other seats' card plays: one log likelihood per candidate deal."""

    def log_likelihoods(self, observation: Observation,
                        deals: Sequence[list[int]]) -> list[float]: ...


class PlayInference:
    """Log likelihoods of candidate worlds' hands under the softened heuristic (see the module).

    ``error`` is the share of a seat's plays given to cards other than the
    heuristic's choice; raises `ValueError` outside (0, 1).
    """

    def __init__(self, error: float = PLAY_ERROR) -> None:
        if not 0.0 < error < 1.0:
            raise ValueError(f"the play error must be within (0, 1), got {error!r}")
        self.error = error

    def log_likelihoods(self, observation: Observation,
                        deals: Sequence[list[int]]) -> list[float]:
        """One log likelihood per deal (a hand mask per seat); all 0 when nothing is known."""
        plays = observed_plays(observation)
        if not plays:
            return [0.0] * len(deals)
        n = observation.num_players
        trump = observation.trump_suit.index if observation.trump_suit is not None else -1
        hit = math.log(1.0 - self.error)
        miss = [0.0] + [math.log(self.error / (k - 1)) for k in range(2, 62)]
        out = []
        # each play's trick read once (`heuristic_picks`: the heuristic's choice as a test of
        # legal masks); the same legal cards give the same answer: many deals share them
        picks = [heuristic_picks(play.card, play.trick, trump, play.lead, play.needed, n)
                 for play in plays]
        memo: dict[tuple[int, int], float] = {}
        for hands in deals:
            total = 0.0
            for i, play in enumerate(plays):
                legal = legal_cards_mask(hands[play.seat] | play.later, play.lead)
                key = (i, legal)
                score = memo.get(key)
                if score is None:
                    count = legal.bit_count()
                    if count <= 1:
                        score = 0.0
                    elif picks[i](legal):
                        score = hit
                    else:
                        score = miss[count - 1]
                    memo[key] = score
                total += score
            out.append(total)
        return out


__all__ = ["PLAY_ERROR", "ObservedPlay", "PlayInference", "PlayModel", "finished_plays",
           "observed_plays"]
