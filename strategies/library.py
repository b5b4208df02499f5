"""The built-in strategies, as ``Strategy`` objects (their jitted code is in the
``*_nb.py`` modules beside this one)."""

from dataclasses import replace
from functools import partial
from pathlib import Path

from kernels.dispatch_nb import GREEDY_ID, RANDOM_ID
from kernels.inlined_strategies_nb import greedy_nb, random_bid_nb, random_call_nb, random_nb
from strategies.api import Alias, Param, Strategy
from strategies.auction_nb import expert_bid_nb, expert_call_nb
from strategies.expert_nb import expert_nb
from strategies.ismcts_nb import ismcts_bid_nb, ismcts_nb
from strategies.net_nb import net_bid_nb, net_call_nb, net_nb
from strategies.nets import net_data, provenance, search_data, shipped_files
from strategies.pimc_nb import pimc_bid_nb, pimc_call_nb, pimc_nb
from strategies.styles_nb import highest_nb, hoarder_nb, lowest_nb

RANDOM = Strategy(
    "random", 1, "Plays any card of its hand, uniformly at random; bids and calls at random.", random_nb,
    inline_id=RANDOM_ID, bid=random_bid_nb, call=random_call_nb,
)  # fmt: skip
GREEDY = Strategy(
    "greedy", 1,
    "The C yardstick's heuristic: lead the cheapest non-trump; take a trick cheaply without "
    "trumping, or trump when the table holds 10+ points; else throw the cheapest card.",
    greedy_nb, inline_id=GREEDY_ID,
)  # fmt: skip
HIGHEST = Strategy("highest", 1, "Always plays its card worth the most points.", highest_nb)
LOWEST = Strategy("lowest", 1, "Always plays its cheapest card.", lowest_nb)
HOARDER = Strategy(
    "hoarder", 1,
    "Saves trumps, Aces and Threes while the stock lasts, winning only with plain cards; "
    "then plays them to take the last tricks.",
    hoarder_nb,
)  # fmt: skip
# Briscola Chiamata: how high to bid, for every strategy that bids by the fitted model.
# -0.6 by measurement (docs/chiamata.md; benchmarks/tuning-bids.toml): it beats expert 2's
# 0.4 and no threshold near it beats it.
BID_THRESHOLD_PARAM = Param("bid_threshold", float, -0.6, -4.0, 4.0, "Briscola Chiamata: game points its best call at "
                      "the next level must be expected to gain for it to bid that level", tables=(5,))  # fmt: skip

EXPERT = Strategy(
    "expert", 3,
    "Counts cards: leads lisci, keeps trumps for loaded tricks, takes points cheaply, loads "
    "a trick its partner surely wins; with 2 players searches the end exactly from the last draw.",
    expert_nb,
    params=(
        Param("signals", bool, True, help="use partners' trump signals where the rules show them",
              tables=(4, 6), rule=("signals", "trumps")),
        Param("partner_view", bool, True, help="use partners' hands where partner_view=last3 shows them",
              tables=(4, 6), rule=("partner_view", "last3")),
        BID_THRESHOLD_PARAM,
    ),
    bid=expert_bid_nb,
    call=expert_call_nb,
)  # fmt: skip

# The search strategies' defaults are measured against expert and random at 2 and 4
# players (docs/strength.md; benchmarks/tuning-search.toml). The parameters both take alike:
# fmt: off
POINTS_WEIGHT = Param("points_weight", float, 1.0, 0.0, 10.0, "weight of the point margin beside win/draw/loss")
SEARCH_SIGNALS = Param("signals", bool, True, help="deal hidden cards consistently with partners' trump signals where shown",
                       tables=(4, 6), rule=("signals", "trumps"))
SEARCH_PARTNER_VIEW = Param("partner_view", bool, True, help="use partners' hands where partner_view=last3 shows them",
                            tables=(4, 6), rule=("partner_view", "last3"))
INFERENCE = Param("inference", float, 0.6, 0.0, 0.99, "trust in the opponent model when weighing hidden hands by the "
                  "plays seen (0: uniform); with adapt, the highest trust used")
ADAPT = Param("adapt", bool, True, help="infer how far each player follows the model from its plays (sets its "
              "randomness in playouts)")
# fmt: on


def opponent_random(default: float) -> Param:
    """The fixed model of opponents, for a search strategy with ``adapt`` off."""
    help_text = "only with adapt=false: chance that an opponent plays a card at random in playouts"
    return Param("opponent_random", float, default, 0.0, 1.0, help_text, requires=("adapt", False))


PIMC = Strategy(
    "pimc", 7,
    "Determinized Monte Carlo search: samples the hidden cards consistently with all it has seen, "
    "weighed by how likely the plays seen make them; plays each card out (expert's rules, each other "
    "player at random as often as its plays suggest, then exact search of the last tricks; at 2 players "
    "4 tricks while the stock lasts, then the points taken and an even share of the rest); keeps the "
    "best on average, stopping early once one card is clearly best.",
    pimc_nb,
    params=(
        Param("samples", int, 64, 1, 4096, "deals of the hidden cards drawn per decision"),
        Param("rollouts", int, 4, 1, 256, "orders of the face-down stock played per sampled deal"),
        POINTS_WEIGHT, opponent_random(0.75), SEARCH_SIGNALS, SEARCH_PARTNER_VIEW, INFERENCE, ADAPT, BID_THRESHOLD_PARAM,
        Param("value_tricks", int, 0, 0, 20, "cut each playout short after this many tricks, at this seat's next "
              "turn while the stock lasts, with the learned value network's estimate (net's weights); 0: play on "
              "by the hand-written rules", tables=(2, 3, 4, 6)),
        Param("playout_policy", bool, False, None, None, "play the playouts by the learned policy (net's) instead of "
              "the hand-written rules (not at Briscola Chiamata)", tables=(2, 3, 4, 6)),
        Param("policy_prior", float, 0.0, 0.0, 10.0, "add this times the learned policy's probability of each card "
              "(net's) to its mean playout result: the search overrules the policy only by a clear margin; 0: off"),
        Param("policy_inference", bool, False, None, None, "weigh the hidden hands by the learned policy's (net's) "
              "probability of the plays seen, from each player's view then, instead of the hand-written rules' (where "
              "the table has a policy network; like those, only with inference > 0 or adapt)"),
        Param("auction_inference", bool, False, None, None, "Briscola Chiamata: weigh the hidden hands by the auction "
              "too, every other player modelled as bidding and calling as this one does (at inference's trust)",
              tables=(5,)),
    ),
    bid=pimc_bid_nb,
    call=pimc_call_nb,
    files=shipped_files(),
    data=search_data,
    provenance=provenance,
)  # fmt: skip

ISMCTS = Strategy(
    "ismcts", 4,
    "Information-set Monte Carlo tree search: one tree of the cards played from here on, shared by "
    "a new deal of the hidden cards each iteration; UCB among the cards each deal allows, playouts "
    "as pimc's; plays the most visited card.",
    ismcts_nb,
    params=(
        Param("iterations", int, 1000, 1, 100000, "iterations per decision: a sampled deal, a node and a playout each"),
        Param("exploration", float, 0.7, 0.0, 10.0, "UCB's exploration constant"),
        POINTS_WEIGHT, opponent_random(0.0), INFERENCE, ADAPT, SEARCH_SIGNALS, SEARCH_PARTNER_VIEW, BID_THRESHOLD_PARAM,
    ),
    bid=ismcts_bid_nb,
    call=expert_call_nb,
)  # fmt: skip

NET = Strategy(
    "net", 1,
    "A learned policy played alone, no search: a small network that learnt to play as the search plays, then by "
    "playing a pool of opponents (strategies/weights, one per table); at Briscola Chiamata it bids and calls by "
    "a learned network's chance of making each contract.",
    net_nb,
    params=(
        Param("temperature", float, 0.0, 0.0, 10.0, "0: the policy's most likely card; above: a card drawn from its "
              "softmax at this temperature"),
        BID_THRESHOLD_PARAM,  # for its auction network too: the best of -3 .. 1 on seed 77 with the tuned play
    ),
    bid=net_bid_nb,
    call=net_call_nb,
    files=shipped_files(),
    data=net_data,
    provenance=provenance,
)  # fmt: skip

BUILTIN = (RANDOM, GREEDY, HIGHEST, LOWEST, HOARDER, EXPERT, NET, PIMC, ISMCTS)

# The strongest setting measured against expert at each table (docs/strength.md, "Which
# to play"): chosen from the figures of docs/strength.md and docs/learned.md on seeds
# 20261201 and 20261203, then checked on seed 46046, which neither tuning nor the choice
# used (benchmarks/bench_against_expert.py; strategies/strength.json keeps the figures).
BEST = Alias(
    "best", 1, "The strongest built-in setting measured against expert at the table (it resolves per table).",
    {
        2: "pimc:samples=4:policy_prior=0.6",  # 0.633-0.641 on three seeds; above expert against the whole pool
        3: "pimc:samples=16:policy_prior=0.3",  # 0.570 where pimc scores 0.548-0.556 and net 0.560
        4: "pimc:samples=16:policy_prior=0.3",  # 0.682 and 0.657 where pimc scores 0.661 and 0.652
        5: "pimc:auction_inference=true",  # 0.600-0.604 on three seeds, pimc 0.600-0.602; more against net
        6: "pimc",  # 0.679 and 0.706; with the prior 0.697 and 0.667, and 0.482 against pimc head to head
    },
)  # fmt: skip
ALIASES = (BEST,)


def with_networks(strategy: Strategy, folder, name: str, description: str = "") -> Strategy:
    """A strategy that plays with the shipped networks (``net``, ``pimc``) playing instead
    those of another folder (``net-{P}p.npz`` and ``.json`` per table, as
    ``examples/train_net.py``, ``tune_net.py`` and ``train_value.py`` write them), under
    ``name``: a plug-in file of one line compares retrained networks with the shipped ones.

    >>> from strategies.nets import WEIGHTS
    >>> with_networks(NET, WEIGHTS, "net-copy").fingerprint() == NET.fingerprint()  # the same code and data
    True
    """
    folder = Path(folder).resolve()
    return replace(strategy, name=name, description=description or f"{strategy.name} with the networks of {folder}",
                   files=shipped_files(folder), data=partial(strategy.data, folder=folder, name=name),
                   provenance=partial(provenance, folder=folder))  # fmt: skip


def net_from(folder, name: str) -> Strategy:
    """``net`` playing the networks of ``folder`` (``with_networks``)."""
    return with_networks(NET, folder, name)
