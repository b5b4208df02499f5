"""Integer codes, lookup tables and record dtypes shared by the kernels and the Python side.

Nothing here runs: it is the vocabulary of the engine, in one place.

Cards are integers: ``code = suit * 10 + face``.

- suit 0..3: Denari, Coppe, Spade, Bastoni
- face 0..9: Ace, 2, 3, 4, 5, 6, 7, Jack (Fante), Knight (Cavallo), King (Re)

Seats are 0..P-1 in playing order; seat P-1 deals and seat 0 leads the first trick
(at Briscola Chiamata, 5 players, seat 0 also bids first). Empty slots in any card array
hold ``NO_CARD`` (-1).
"""

import numpy as np

N_SUITS = 4
N_FACES = 10
N_CARDS = 40
HAND_SIZE = 3  # cards dealt to each player, but at Briscola Chiamata
CHIAMATA_PLAYERS = 5
CHIAMATA_HAND = 8  # Briscola Chiamata deals the whole pack, 8 cards each
MAX_HAND = CHIAMATA_HAND  # the width of every hand array
MAX_PLAYERS = 6
MAX_TABLE = MAX_PLAYERS
NO_CARD = -1
NO_SEAT = -1

FACE_ACE, FACE_TWO, FACE_THREE = 0, 1, 2

# Strength index of each face, 0 = weakest: 2 4 5 6 7 J N K 3 A.
# Lookup tables are int64 so that arithmetic on them never overflows, compiled or not.
FACE_STRENGTH = np.array([9, 0, 8, 1, 2, 3, 4, 5, 6, 7], dtype=np.int64)
FACE_POINTS = np.array([11, 0, 10, 0, 0, 0, 0, 2, 3, 4], dtype=np.int64)

CARD_SUIT = np.repeat(np.arange(N_SUITS, dtype=np.int64), N_FACES)
CARD_FACE = np.tile(np.arange(N_FACES, dtype=np.int64), N_SUITS)
CARD_STRENGTH = FACE_STRENGTH[CARD_FACE]
CARD_POINTS = FACE_POINTS[CARD_FACE]
TOTAL_POINTS = 120  # in every pack: only twos, worth nothing, are ever removed


def record_dtype(fields):
    """A structured dtype whose elements are ``np.record`` (fields readable as attributes),
    so the kernels also run as plain Python (NUMBA_DISABLE_JIT=1) for debugging."""
    return np.dtype((np.record, fields))


# Rule options, as integer codes in the kernels' ``rules`` array.
RULE_TRUMP_REDEAL, RULE_REMOVED_TWO, RULE_PARTNER_VIEW, RULE_SIGNALS = 0, 1, 2, 3
RULE_FIRST_LEAD, RULE_BID_MULTIPLIER, RULE_AUCTION = 4, 5, 6  # Briscola Chiamata
N_RULES = 7
TRUMP_REDEAL_OFF, TRUMP_REDEAL_ACE_THREE = 0, 1
REMOVED_TWO_RANDOM = -1  # otherwise the suit (0..3) whose two is removed
PARTNER_VIEW_NONE, PARTNER_VIEW_LAST3 = 0, 1
SIGNALS_NONE, SIGNALS_TRUMPS = 0, 1
FIRST_LEAD_ELDEST, FIRST_LEAD_CALLER = 0, 1
BID_MULTIPLIER_OFF, BID_MULTIPLIER_ON = 0, 1
AUCTION_POINTS, AUCTION_RANKS = 0, 1

# Briscola Chiamata's auction. A bid is a level: 0..9 name a rank, going down the
# ranking (BID_FACES: Ace, Three, King, Knight, Jack, 7, 6, 5, 4, Two), each promising
# 61 points; levels 10..68 promise 62..120 points (level + 52) and call a Two.
PASS = -1
BID_FACES = np.array([0, 2, 9, 8, 7, 6, 5, 4, 3, 1], dtype=np.int64)
LAST_RANK_BID = 9  # the Two: the last bid under auction=ranks
MAX_BID = 68  # 120 points
WINNING_POINTS = 61  # what a rank bid promises
POINTS_BID_OFFSET = 52  # a points bid's level + 52 = the points it promises
MAX_AUCTION = 80  # actions in an auction, at most: 69 bids and 5 passes

# Partnership signals (signals=trumps) show which trump honours a partner holds, as bits:
# Ace 1, Three 2, King 4, Knight 8, Jack 16; other faces 0.
FACE_HONOUR_BIT = np.array([1, 0, 2, 0, 0, 0, 0, 16, 8, 4], dtype=np.int64)

# Random streams of one deal: the dealer's, then one per seat for its strategy.
STREAM_DEAL = 0
N_STREAMS = 1 + MAX_PLAYERS

# Result of a decision check: the kernels report the first illegal decision they meet.
DECISION_OK = -1

# What a player may see when choosing a card: the only argument about the game that a
# strategy receives. Public fields are kept up to date by the engine as play goes on;
# private ones (hand, partner_hands) are filled in for the seat about to play. A plug-in
# gets a copy made for its decision alone: whatever it writes there, nobody else sees.
VIEW_DTYPE = record_dtype(
    [
        ("seat", np.int8),  # the seat choosing a card
        ("players", np.int8),
        ("trump_suit", np.int8),
        ("briscola", np.int8),  # the face-up trump card while it lies under the stock, else -1
        # The face-up trump card for the whole deal (everyone saw it turned), and the seat
        # that took it with the last draw (-1 while it lies under the stock). At Briscola
        # Chiamata (5 players) no card is turned: both -1.
        ("face_up", np.int8),
        ("face_up_holder", np.int8),
        ("removed_two", np.int8),  # 3 players: the two taken out of the pack, else -1
        ("stock_size", np.int8),  # cards still to be drawn, the face-up briscola included
        ("trick", np.int8),  # index of the current trick, from 0
        ("leader", np.int8),  # seat that led the current trick
        ("n_table", np.int8),  # cards already played to the current trick
        ("n_hand", np.int8),
        ("table", np.int8, MAX_TABLE),  # current trick, in playing order from the leader
        ("hand", np.int8, MAX_HAND),  # own cards, n_hand of them first, then -1
        # Partners' cards by seat, where the rules show them (partner_view=last3, 4 and 6
        # players: 3-card hands); else -1.
        ("partner_hands", np.int8, (MAX_PLAYERS, HAND_SIZE)),
        # signals=trumps, from the second trick on: the trump honours each partner holds
        # now, as FACE_HONOUR_BIT bits (0: none); -1 for every other seat, and otherwise.
        ("partner_trumps", np.int8, MAX_PLAYERS),
        ("points", np.int16, MAX_PLAYERS),  # points taken so far, per seat
        ("played_by", np.int8, N_CARDS),  # seat that played each card, -1 if not played yet
        # The public course of the deal: who played a card is played_by[card]; trick t
        # was led by trick_winners[t - 1] (seat 0 leads trick 0).
        ("n_played", np.int8),  # cards played so far in the deal, the table's included
        ("history", np.int8, N_CARDS),  # every card played, in playing order; then -1
        ("trick_winners", np.int8, N_CARDS // 2),  # seat that took each finished trick; then -1
        # Briscola Chiamata (5 players); -1 at the other tables. The auction so far:
        ("bid", np.int8),  # the highest bid (a level, see BID_FACES), -1 before any
        ("bidder", np.int8),  # the seat that made it
        ("seat_bids", np.int8, MAX_PLAYERS),  # each seat's last bid, -1 for none
        ("passed", np.int8, MAX_PLAYERS),  # 1 for each seat that has passed, else 0
        ("max_bid", np.int8),  # the highest bid the rules allow: 68, or 9 under auction=ranks
        # Once the auction is over: the caller, the card called, the points it needs.
        ("caller", np.int8),
        ("called", np.int8),
        ("target", np.int8),
        # The caller's partner (the holder of the called card; the caller itself when it
        # called its own card): shown once the called card is played, and to the partner
        # itself; -1 for everyone else until then.
        ("partner", np.int8),
    ]
)

# The engine's own state of a deal in play, kept apart from the views it shows (so a
# strategy writing to its view changes nothing): one record per block of deals.
WORK_DTYPE = record_dtype(
    [
        ("hands", np.int8, (MAX_PLAYERS, MAX_HAND)),  # live hands, n_hand[seat] cards first
        ("n_hand", np.int8, MAX_PLAYERS),
        ("table", np.int8, MAX_TABLE),  # the current trick, from the leader on
        ("points", np.int16, MAX_PLAYERS),  # points taken so far, per seat
        ("partner", np.int8),  # Briscola Chiamata: the holder of the called card
        ("revealed", np.bool_),  # whether the called card has been played
        ("caller_strength", np.int16),  # the caller's hand at the call (RESULT_DTYPE)
    ]
)

# One dealt deal: everything the shuffle decided, enough to replay the deal exactly.
DEAL_DTYPE = record_dtype(
    [
        ("players", np.int8),
        ("hand_size", np.int8),  # cards dealt to each seat: 3, or 8 at Briscola Chiamata
        ("hands", np.int8, (MAX_PLAYERS, MAX_HAND)),  # rows for seats 0..P-1, in dealing order
        ("briscola", np.int8),  # the face-up card; its suit is trump (-1 at Briscola Chiamata)
        ("n_stock", np.int8),
        ("stock", np.int8, N_CARDS),  # drawing order; the briscola is the last of n_stock cards
        ("n_removed", np.int8),
        ("removed", np.int8, N_SUITS),  # twos taken out of the pack (3 and 6 players)
    ]
)

# How one deal ended.
RESULT_DTYPE = record_dtype(
    [
        ("deal", np.int64),
        ("briscola", np.int8),
        ("seat_points", np.int16, MAX_PLAYERS),  # -1 for seats beyond the table
        ("side_points", np.int16, 3),  # -1 for sides beyond the table
        ("winner_side", np.int8),  # -1 for a draw
        # Briscola Chiamata: side 0 is the caller's (caller and partner), side 1 the
        # defenders'. A deal thrown in (everyone passed) has caller -1, made -1, no points.
        ("bid", np.int8),
        ("caller", np.int8),
        ("called", np.int8),
        ("partner", np.int8),
        ("target", np.int8),
        ("made", np.int8),  # 1: the caller's side took its target; 0: it did not
        ("cappotto", np.int8),  # 1: one side took every trick
        ("caller_strength", np.int16),  # the caller's hand at the call, by suit_value_nb
        ("game_points", np.int8, MAX_PLAYERS),  # zero-sum game points of each seat
    ]
)

# The move-by-move record of one deal, kept only for traced runs.
PLAY_DTYPE = record_dtype(
    [
        ("plays", np.int8, N_CARDS),  # every card in playing order, -1 after the last
        ("trick_winners", np.int8, N_CARDS // 2),  # -1 after the last trick
        # Briscola Chiamata: every auction action in turn order, each seat's bid or PASS.
        ("n_auction", np.int8),
        ("auction_seats", np.int8, MAX_AUCTION),
        ("auction_bids", np.int8, MAX_AUCTION),
    ]
)

# The first decision of a deal that was not legal: a card not in the player's hand, a bid
# not above the last one, a call of a card not of the bid's rank.
PHASE_PLAY, PHASE_BID, PHASE_CALL = 0, 1, 2
ILLEGAL_DTYPE = record_dtype(
    [
        ("play", np.int16),  # index of the decision in its phase; -1: every decision was legal
        ("phase", np.int8),
        ("seat", np.int8),
        ("card", np.int64),  # what the strategy returned (a card, or a bid), whole: any int64
        ("hand", np.int8, MAX_HAND),
    ]
)
