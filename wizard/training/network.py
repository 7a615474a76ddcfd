"""`PolicyNet`: the torch twin of the ONNX graph in `onnx_graphs.mlp_policy`.

One ReLU MLP trunk over the 315 features and three heads: the policy over the
85 actions (illegal ones masked), the tricks the seat ends the round with
(0..round number) and the value (the round's score / 100); optionally a fourth,
the tricks after a card (`after_head`: what the card lookahead reads). ``forward``
returns logits; `outputs` returns what the ONNX file returns, to the same float32 maths.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from wizard.ai.encoding import BLOCKS, FEATURE_SIZE, ActionSpace
from wizard.ai.policy import TRICKS_SIZE

from . import card_sense
from .card_head import CARD_SENSES, CardHeadWeights
from .card_sense import CARD_ACTIONS, SENSED_SIZE, STATES
from .onnx_graphs import ROUND_FEATURE, MlpWeights

MASKED = -1e9


class PolicyNet(nn.Module):
    """With ``sense`` the trunk reads the card-sense features (`card_sense`) beside the 315;
    with ``card_head`` > 0 (and ``sense``) a card head of that many units a card adds its
    scores to the cards' logits (`card_head`); with ``after_head`` a tricks head of its own
    for the rows after a card (`after_head`, ONNX output ``after_tricks``), which with
    ``after_hidden`` > 0 adds a ReLU layer of that many units beside its linear map
    (`after_deep`, its output layer starting at zero)."""

    def __init__(self, hidden: Sequence[int] = (256, 256), sense: bool = False,
                 card_head: int = 0, after_head: bool = False, after_hidden: int = 0) -> None:
        super().__init__()
        if not hidden or any(h <= 0 for h in hidden):
            raise ValueError(f"hidden sizes must be positive and at least one, got {hidden}")
        if card_head and not sense:
            raise ValueError("the card head reads the card-sense features: it needs sense")
        if after_hidden and not after_head:
            raise ValueError("after_hidden widens the after-card head: it needs after_head")
        self.hidden = tuple(int(h) for h in hidden)
        self.sense = bool(sense)
        self.card_head = int(card_head)
        sizes = [SENSED_SIZE if sense else FEATURE_SIZE, *self.hidden]
        for name, table in (("sense_higher", card_sense.HIGHER), ("sense_suits", card_sense.SUITS),
                            ("sense_beats", card_sense.BEATS),
                            ("sense_specials", card_sense.SPECIALS)):
            self.register_buffer(name, torch.from_numpy(table), persistent=False)
        self.trunk = nn.ModuleList(nn.Linear(a, b) for a, b in itertools.pairwise(sizes))
        width = sizes[-1]
        self.policy_head = nn.Linear(width, ActionSpace.SIZE)
        self.tricks_head = nn.Linear(width, TRICKS_SIZE)
        self.value_head = nn.Linear(width, 1)
        self.after_head = nn.Linear(width, TRICKS_SIZE) if after_head else None
        self.after_deep = AfterDeep(width, after_hidden) if after_hidden else None
        if self.card_head:
            k = self.card_head
            self.card_query = nn.Linear(width, k)
            self.card_reads = nn.Parameter(torch.zeros(CARD_SENSES, k))
            self.card_embed = nn.Parameter(torch.zeros(60, k))
            self.card_out = nn.Linear(k, 1)
        counts = torch.arange(TRICKS_SIZE, dtype=torch.float32)[None, :]
        self.register_buffer("trick_counts", counts, persistent=False)
        self.trick_counts: torch.Tensor  # the buffer (the class attribute is typed as a Module)

    def forward(self, features: torch.Tensor, mask: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Masked policy logits ``[N, 85]``, masked tricks logits ``[N, 21]``, value ``[N]``."""
        h, sense = self.trunk_out(features, mask)
        masked = torch.tensor(MASKED, dtype=h.dtype)
        logits = self.policy_head(h)
        if self.card_head and sense is not None:
            per_card = sense[:, :CARD_SENSES * 60].reshape(-1, CARD_SENSES, 60).transpose(1, 2)
            units = torch.relu(self.card_query(h)[:, None, :] + per_card @ self.card_reads
                               + self.card_embed)
            scores = self.card_out(units).squeeze(-1)
            start, stop = CARD_ACTIONS.start, CARD_ACTIONS.stop
            logits = torch.cat([logits[:, :start], logits[:, start:stop] + scores,
                                logits[:, stop:]], 1)
        policy = torch.where(mask, logits, masked)
        tricks = self.possible_tricks(features, self.tricks_head(h))
        return policy, tricks, self.value_head(h).squeeze(-1)

    def trunk_out(self, features: torch.Tensor, mask: torch.Tensor
                  ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """The trunk's last hidden layer, and the card-sense features (None without sense)."""
        sense = self.card_sense(features, mask) if self.sense else None
        h = torch.cat([features, sense], 1) if sense is not None else features
        for layer in self.trunk:
            h = torch.relu(layer(h))
        return h, sense

    def possible(self, features: torch.Tensor) -> torch.Tensor:
        """``[N, 21]``: the trick counts a row's round can end with (0..its number of cards)."""
        return self.trick_counts < features[:, ROUND_FEATURE:ROUND_FEATURE + 1] * 20.0 + 0.5

    def possible_tricks(self, features: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        """Tricks logits with the counts beyond the round's number of cards at -1e9."""
        return torch.where(self.possible(features), logits,
                           torch.tensor(MASKED, dtype=logits.dtype))

    def after_tricks(self, features: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The after-card head's masked tricks logits ``[N, 21]`` (rows after a card).
        Raises `ValueError` for a net without that head."""
        if self.after_head is None:
            raise ValueError("this net has no after-card tricks head")
        h, _ = self.trunk_out(features, mask)
        return self.possible_tricks(features, self.after_logits(h))

    def after_logits(self, h: torch.Tensor) -> torch.Tensor:
        """The after-card head's logits ``[N, 21]`` from the trunk's last layer ``h``
        (unmasked; a net with the head)."""
        assert self.after_head is not None
        logits: torch.Tensor = self.after_head(h)
        return logits if self.after_deep is None else logits + self.after_deep(h)

    def card_sense(self, features: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """`card_sense.sense` in torch, ``[N, 243]``."""
        def block(name: str) -> torch.Tensor:
            return features[:, BLOCKS[name]]

        buffers = dict(self.named_buffers())
        trump, lead = block("trump_suit"), block("lead_suit")
        unseen = torch.relu(1.0 - block("hand") - block("played") - block("trump_card"))
        states = (trump[:, :, None] * lead[:, None, :]).reshape(-1, STATES * STATES, 1)
        beaten = ((block("trick") @ buffers["sense_beats"]).reshape(-1, STATES * STATES, 60)
                  * states).sum(1)
        suits = buffers["sense_suits"]
        unseen_trumps = ((unseen @ suits) * trump[:, :4]).sum(1, keepdim=True) / 13.0
        return torch.cat([unseen @ buffers["sense_higher"], torch.clamp(beaten, max=1.0),
                          trump[:, :4] @ suits.T, mask[:, CARD_ACTIONS].to(features.dtype),
                          unseen_trumps, unseen @ buffers["sense_specials"]], 1)

    @torch.no_grad()
    def outputs(self, features: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, ...]:
        """``probs``, ``tricks``, ``value`` (and ``after_tricks`` with an after-card head) as
        numpy, as the exported ONNX file computes them."""
        x, m = torch.from_numpy(features), torch.from_numpy(mask)
        policy, tricks, value = self(x, m)
        out: tuple[np.ndarray, ...] = (torch.softmax(policy, -1).numpy(),
                                       torch.softmax(tricks, -1).numpy(),
                                       value[:, None].numpy())
        if self.after_head is not None:
            out += (torch.softmax(self.after_tricks(x, m), -1).numpy(),)
        return out

    @classmethod
    def from_weights(cls, weights: MlpWeights) -> PolicyNet:
        """A net holding ``weights`` (as `to_weights` gives them, or `weights_from_onnx`)."""
        cards = weights.cards
        net = cls(tuple(w.shape[1] for w, _ in weights.trunk),
                  sense=weights.trunk[0][0].shape[0] == SENSED_SIZE,
                  card_head=cards.size if cards is not None else 0,
                  after_head=weights.after is not None,
                  after_hidden=weights.after_deep[0][0].shape[1] if weights.after_deep else 0)
        layers = [*net.trunk, net.policy_head, net.tricks_head, net.value_head]
        pairs = [*weights.trunk, weights.policy, weights.tricks, weights.value]
        if net.after_head is not None and weights.after is not None:
            layers.append(net.after_head)
            pairs.append(weights.after)
        if net.after_deep is not None and weights.after_deep is not None:
            layers += [net.after_deep.hidden, net.after_deep.out]
            pairs += list(weights.after_deep)
        if cards is not None:
            layers += [net.card_query, net.card_out]
            pairs += [cards.query, cards.out]
            with torch.no_grad():
                net.card_reads.copy_(torch.from_numpy(cards.reads))
                net.card_embed.copy_(torch.from_numpy(cards.embed))
        with torch.no_grad():
            for layer, (weight, bias) in zip(layers, pairs, strict=True):
                if layer.weight.shape != (weight.shape[1], weight.shape[0]):
                    raise ValueError(f"a layer of {tuple(weight.shape)} does not fit "
                                     f"{tuple(layer.weight.shape[::-1])}")
                layer.weight.copy_(torch.from_numpy(np.ascontiguousarray(weight.T)))
                layer.bias.copy_(torch.from_numpy(bias))
        return net

    def to_weights(self) -> MlpWeights:
        """The weights in the ``(in, out)`` layout `onnx_graphs.mlp_policy` takes."""

        def pair(layer: nn.Linear) -> tuple[np.ndarray, np.ndarray]:
            return (layer.weight.detach().numpy().T.astype(np.float32).copy(),
                    layer.bias.detach().numpy().astype(np.float32).copy())

        cards = None
        if self.card_head:
            cards = CardHeadWeights(pair(self.card_query),
                                    self.card_reads.detach().numpy().astype(np.float32).copy(),
                                    self.card_embed.detach().numpy().astype(np.float32).copy(),
                                    pair(self.card_out))
        after = pair(self.after_head) if self.after_head is not None else None
        deep = self.after_deep
        return MlpWeights([pair(layer) for layer in self.trunk],  # type: ignore[arg-type]
                          pair(self.policy_head), pair(self.tricks_head), pair(self.value_head),
                          cards, after,
                          (pair(deep.hidden), pair(deep.out)) if deep is not None else None)


class AfterDeep(nn.Module):
    """The after-card head's ReLU layer of ``units`` and its output map, whose logits add to
    the head's linear ones; the output map starts at zero (the sum starts as the linear head)."""

    def __init__(self, width: int, units: int) -> None:
        super().__init__()
        self.hidden = nn.Linear(width, units)
        self.out = nn.Linear(units, TRICKS_SIZE)
        nn.init.zeros_(self.out.weight)
        nn.init.zeros_(self.out.bias)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        logits: torch.Tensor = self.out(torch.relu(self.hidden(h)))
        return logits
