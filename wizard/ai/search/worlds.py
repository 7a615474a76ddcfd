"""Worlds: the hidden cards dealt at random, consistent with what one seat knows.

A determinized search (PIMC) replaces the unknown hands by sampled ones. What
the seat knows, read from its `Observation` into `Knowledge`:

- its own hand, every card played this round and the turned trump card: nobody
  else holds these;
- every other seat's hand size;
- revealed voids: a seat that did not follow the led suit holds no card of that
  suit (wizards and jesters may always be played, so they reveal nothing).

The tricks of the round are rebuilt from ``played_cards`` (play order): the
first trick is led by the seat after the dealer, each later one by the winner
of the one before. `sample_hands` deals the unseen cards to the other seats
(the rest stay undealt) so that every constraint holds; `world_core` turns a
deal into a `GameCore` the rollout can play on. Everything random comes from
the generator passed in.

>>> from wizard.engine import WizardGame
>>> game = WizardGame(4, seed=5)
>>> obs = game.observation(game.current_player)
>>> knowledge = Knowledge.of(obs)
>>> hands = sample_hands(knowledge, random.Random(1))
>>> [h.bit_count() for h in hands] == list(obs.hand_sizes)
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from wizard.engine import GameCore, Observation, Phase, ids_of
from wizard.engine.cards import ALL_CARDS_MASK, JESTER_MASK, NUM_CARDS, SUIT_MASKS, WIZARD_MASK
from wizard.engine.core import BIDDING, CHOOSING_TRUMP, PLAYING
from wizard.engine.deal import deal_orders
from wizard.engine.rules import lead_of, trick_winner

from ..agents.heuristic import expected_tricks
from .rollout import closest_bid

_SPECIALS = WIZARD_MASK | JESTER_MASK
_PHASES = {Phase.BIDDING: BIDDING, Phase.PLAYING: PLAYING, Phase.CHOOSING_TRUMP: CHOOSING_TRUMP}



@dataclass(frozen=True, slots=True)
class Knowledge:
    """What seat ``me`` knows about the hidden hands this round.

    ``voids[p]`` is a 4-bit mask of the suits seat ``p`` has shown it lacks;
    ``allowed[p]`` the cards seat ``p`` may hold (``unseen`` minus its voids).
    """

    me: int
    hand: int
    hand_sizes: tuple[int, ...]
    unseen: int
    voids: tuple[int, ...]
    allowed: tuple[int, ...]
    #: ``unseen`` as ascending ids, read once for the many deals drawn from it
    unseen_ids: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "unseen_ids", tuple(ids_of(self.unseen)))

    @staticmethod
    def of(observation: Observation) -> Knowledge:
        """Read a seat's observation; raises `ValueError` for a spectator's view."""
        me = observation.player
        if me is None:
            raise ValueError("a spectator's observation has no hand to search from")
        n = observation.num_players
        hand = 0
        for card in observation.hand:
            hand |= 1 << card.id
        known = hand
        for card in observation.played_cards:
            known |= 1 << card.id
        if observation.trump_card is not None:
            known |= 1 << observation.trump_card.id
        voids = revealed_voids([c.id for c in observation.played_cards], n,
                               (observation.dealer + 1) % n,
                               observation.trump_suit.index if observation.trump_suit else -1)
        unseen = ALL_CARDS_MASK & ~known
        allowed = []
        for seat in range(n):
            mask = unseen
            for suit in range(4):
                if voids[seat] >> suit & 1:
                    mask &= ~SUIT_MASKS[suit]
            allowed.append(0 if seat == me else mask)
        return Knowledge(me, hand, tuple(observation.hand_sizes), unseen, tuple(voids),
                         tuple(allowed))


def revealed_voids(played: list[int], n: int, first_leader: int, trump_suit: int) -> list[int]:
    """Per seat, the suits (4-bit mask) it failed to follow in the round's ``played`` cards.

    >>> revealed_voids([0, 13, 1, 2], 4, first_leader=0, trump_suit=-1)  # red led, seat 1 yellow
    [0, 1, 0, 0]
    """
    voids = [0] * n
    leader = first_leader
    for start in range(0, len(played), n):
        trick = played[start:start + n]
        for position, card in enumerate(trick):
            lead = lead_of(trick[:position])
            if 0 <= lead < 4 and card < 52 and card // 13 != lead:
                voids[(leader + position) % n] |= 1 << lead
        if len(trick) == n:
            leader = (leader + trick_winner(trick, trump_suit)) % n
    return voids


def sample_hands(knowledge: Knowledge, rng: random.Random) -> list[int]:
    """One deal of the unseen cards: a hand mask per seat (ours as it is).

    Seats with the fewest allowed cards are dealt first, each a uniform sample
    of what it may hold and is still free; if that runs out (rare: several
    seats with different voids), the deal is redrawn, and after a few tries a
    card-by-card deal that checks Hall's condition is used, which always
    succeeds when a consistent deal exists. Raises `ValueError` when none does
    (an observation that contradicts itself).
    """
    me = knowledge.me
    seats = [p for p in range(len(knowledge.hand_sizes)) if p != me and knowledge.hand_sizes[p]]
    hands = [0] * len(knowledge.hand_sizes)
    hands[me] = knowledge.hand
    if not any(knowledge.voids[p] for p in seats):
        pool = knowledge.unseen_ids
        needed = sum(knowledge.hand_sizes[p] for p in seats)
        if needed > len(pool):
            raise ValueError("the hidden hands hold more cards than are unseen")
        cards = rng.sample(pool, needed)
        start = 0
        for p in seats:
            size = knowledge.hand_sizes[p]
            mask = 0
            for card in cards[start:start + size]:
                mask |= 1 << card
            hands[p] = mask
            start += size
        return hands
    order = sorted(seats, key=lambda p: (knowledge.allowed[p].bit_count(), p))
    for _ in range(8):
        free = knowledge.unseen
        for p in order:
            choices = ids_of(knowledge.allowed[p] & free)
            size = knowledge.hand_sizes[p]
            if len(choices) < size:
                break
            mask = 0
            for card in rng.sample(choices, size):
                mask |= 1 << card
            hands[p] = mask
            free &= ~mask
        else:
            return hands
    return _hall_deal(knowledge, seats, rng)


def _hall_deal(knowledge: Knowledge, seats: list[int], rng: random.Random) -> list[int]:
    """Card by card, each to a random seat that keeps a complete deal possible."""
    hands = [0] * len(knowledge.hand_sizes)
    hands[knowledge.me] = knowledge.hand
    need = {p: knowledge.hand_sizes[p] for p in seats}
    free = knowledge.unseen
    if not _feasible(knowledge, need, free):
        raise ValueError("no deal of the unseen cards fits the observation")
    for card in rng.sample(ids_of(free), free.bit_count()):
        free &= ~(1 << card)
        takers = [p for p in seats if need[p] and knowledge.allowed[p] >> card & 1]
        rng.shuffle(takers)
        for p in [*takers, None]:  # None: the card stays undealt
            if p is not None:
                need[p] -= 1
            if _feasible(knowledge, need, free):
                if p is not None:
                    hands[p] |= 1 << card
                break
            if p is not None:
                need[p] += 1
        if not any(need.values()):
            break
    return hands


def _feasible(knowledge: Knowledge, need: dict[int, int], free: int) -> bool:
    """Hall's condition: every group of seats can still fill its hands from ``free``."""
    seats = [p for p, k in need.items() if k]
    for subset in range(1, 1 << len(seats)):
        cards = 0
        wanted = 0
        for i, p in enumerate(seats):
            if subset >> i & 1:
                cards |= knowledge.allowed[p]
                wanted += need[p]
        if (cards & free).bit_count() < wanted:
            return False
    return True


@cache
def _orders(n: int) -> tuple[tuple[int, ...], ...]:
    # a world never deals a next round that matters; any deal order will do
    return deal_orders(0, n)


def world_core(observation: Observation, hands: list[int], *,
               hidden_bid_of: dict[int, int] | None = None) -> GameCore:
    """A `GameCore` of the observed position with ``hands`` as every seat's hand.

    Bids the observer cannot see (``hidden_bids``) are taken from
    ``hidden_bid_of`` when given, else made up by the heuristic from the seat's
    sampled hand. Raises `ValueError` for a finished game.
    """
    phase = _PHASES.get(observation.phase)
    if phase is None:
        raise ValueError(f"no world to build in phase {observation.phase.value}")
    n = observation.num_players
    core = GameCore.__new__(GameCore)
    core.n = n
    core.seed = 0
    core.orders = _orders(n)
    core.total_rounds = observation.total_rounds
    options = observation.options
    core.hidden_bids = options.hidden_bids
    core.forbid_even_bids = options.forbid_even_bids
    core.dealer_chooses = options.wizard_trump_dealer_chooses
    core.round_number = observation.round_number
    core.dealer = observation.dealer
    core.phase = phase
    assert observation.current_player is not None
    core.current = observation.current_player
    core.hands = list(hands)
    trump = observation.trump_card.id if observation.trump_card is not None else -1
    core.trump_card = trump
    core.trump_suit = observation.trump_suit.index if observation.trump_suit is not None else -1
    undealt = ALL_CARDS_MASK
    for hand in hands:
        undealt &= ~hand
    played = [c.id for c in observation.played_cards]
    for card in played:
        undealt &= ~(1 << card)
    if trump >= 0:
        undealt &= ~(1 << trump)
    core.undealt_mask = undealt
    bids = []
    for seat, (bid, has_bid) in enumerate(zip(observation.bids, observation.has_bid, strict=True)):
        if bid is not None:
            bids.append(bid)
        elif has_bid:
            if hidden_bid_of and seat in hidden_bid_of:
                bids.append(hidden_bid_of[seat])
            else:  # a hidden bid: what the heuristic would have bid with this hand
                legal = (1 << (observation.round_number + 1)) - 1
                bids.append(closest_bid(
                    expected_tricks(ids_of(hands[seat]), core.trump_suit, n), legal))
        else:
            bids.append(-1)
    core.bids = bids
    core.bid_count = sum(b >= 0 for b in bids)
    core.bid_sum = sum(b for b in bids if b >= 0)
    core.tricks = list(observation.tricks_won)
    core.trick = [p.card.id for p in observation.current_trick]
    core.lead = lead_of(core.trick)
    core.leader = observation.trick_leader
    core.trick_number = observation.trick_number
    core.played = played
    core.scores = list(observation.scores)
    core.last_trick = []
    core.last_trick_leader = -1
    core.last_trick_winner = -1
    core.last_bids = []
    core.last_tricks = []
    core.last_changes = []
    return core


def played_by_seat(played: list[int], n: int, first_leader: int, trump_suit: int) -> list[int]:
    """Per seat, the mask of the cards it played among the round's ``played`` cards.

    >>> played_by_seat([0, 13, 1, 2], 4, first_leader=1, trump_suit=-1)
    [4, 1, 8192, 2]
    """
    masks = [0] * n
    leader = first_leader
    for start in range(0, len(played), n):
        trick = played[start:start + n]
        for position, card in enumerate(trick):
            masks[(leader + position) % n] |= 1 << card
        if len(trick) == n:
            leader = (leader + trick_winner(trick, trump_suit)) % n
    return masks


@cache
def _trick_values(trump_suit: int, n: int) -> tuple[float, ...]:
    # `expected_tricks` card by card, so a hand mask is summed without building a list
    return tuple(expected_tricks([card], trump_suit, n) for card in range(NUM_CARDS))


def bid_fit(observation: Observation, spread: float) -> Callable[[list[int]], float]:
    """How well a deal (a hand mask per seat) explains the visible bids of the other seats.

    The returned function gives ``-Σ (bid − estimate)² / (2·spread²)`` over each
    other seat whose bid is visible, ``estimate`` being the heuristic's expected
    tricks (`expected_tricks`) of the hand that seat held when it bid: its
    sampled hand plus the cards it has played this round. Raises `ValueError`
    for a spread that is not positive.

    >>> from wizard.engine import WizardGame
    >>> game = WizardGame(4, seed=5)
    >>> fit = bid_fit(game.observation(game.current_player), 1.0)
    >>> fit([0, 0, 0, 0]) == 0.0  # nobody has bid yet: every deal fits
    True
    """
    if not spread > 0.0:
        raise ValueError(f"the bid spread must be positive, got {spread!r}")
    n = observation.num_players
    trump = observation.trump_suit.index if observation.trump_suit is not None else -1
    played = played_by_seat([c.id for c in observation.played_cards], n,
                            (observation.dealer + 1) % n, trump)
    values = _trick_values(trump, n)
    seats = [(seat, bid, played[seat]) for seat, bid in enumerate(observation.bids)
             if bid is not None and seat != observation.player]
    scale = -1.0 / (2.0 * spread * spread)

    def fit(hands: list[int]) -> float:
        total = 0.0
        for seat, bid, gone in seats:
            mask = hands[seat] | gone
            estimate = 0.0
            while mask:
                low = mask & -mask
                estimate += values[low.bit_length() - 1]
                mask ^= low
            total += (bid - estimate) ** 2
        return total * scale

    return fit


#: log weights of candidate deals (a hand mask per seat each), one per deal
Weigh = Callable[[Observation, list[list[int]]], list[float]]


def sample_worlds(observation: Observation, count: int, rng: random.Random, *,
                  bid_spread: float | None = None, weigh: Weigh | None = None,
                  oversample: int = 4) -> list[GameCore]:
    """``count`` worlds of the observed position (see `sample_hands`).

    Without ``bid_spread`` or ``weigh`` the worlds are independent uniform
    deals. With either, and once another seat's bid is visible, ``count ×
    oversample`` deals are drawn and ``count`` of them kept without replacement
    with probability growing with their log weight (Gumbel top-k): ``weigh``'s
    (e.g. `wizard.ai.search.inference.BidInference.log_weights`), else
    `bid_fit`'s. Raises `ValueError` for a spread or oversample that is not positive.
    """
    knowledge = Knowledge.of(observation)
    if (bid_spread is None and weigh is None) or not any(
            b is not None for seat, b in enumerate(observation.bids) if seat != knowledge.me):
        return [world_core(observation, sample_hands(knowledge, rng)) for _ in range(count)]
    if oversample < 1:
        raise ValueError(f"oversample must be at least 1, got {oversample!r}")
    deals = [sample_hands(knowledge, rng) for _ in range(count * oversample)]
    if weigh is not None:
        weights = weigh(observation, deals)
    else:
        assert bid_spread is not None
        fit = bid_fit(observation, bid_spread)
        weights = [fit(hands) for hands in deals]
    keys = [w - math.log(-math.log(1.0 - rng.random())) for w in weights]
    keep = sorted(range(len(deals)), key=lambda i: -keys[i])[:count]
    return [world_core(observation, deals[i]) for i in sorted(keep)]


__all__ = ["Knowledge", "Weigh", "bid_fit", "played_by_seat", "revealed_voids", "sample_hands",
           "sample_worlds", "world_core"]
