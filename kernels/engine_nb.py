"""The engine (jitted code only): plays deals with a strategy per seat, many at a time,
on every core.

One deal's life: ``deal_nb`` shuffles and deals it into a DEAL_DTYPE record, then
``play_deal_nb`` plays it trick by trick, asking each seat's strategy for a card through
``choose_card_nb``, and writes a RESULT_DTYPE row. At Briscola Chiamata (5 players) an
auction and a call come first (``chiamata_nb.py``). Strategies see the deal only through a
VIEW_DTYPE record holding what their player may see.

Untraced 2-player deals between ``random`` and ``greedy`` take the fast path of
``kernels/duel_nb.py`` instead, with the same results: ``simulate_duels_nb``, a kernel of
its own (the caller picks it with ``is_duel_nb``), so that each run compiles only the
path it plays.
"""

from numba import njit, prange

from kernels.bound_nb import bind_nb
from kernels.chiamata_nb import (
    AUCTION_DONE,
    AUCTION_THROWN_IN,
    make_call_nb,
    open_auction_nb,
    run_auction_nb,
    score_chiamata_nb,
    score_thrown_in_nb,
    show_partner_nb,
)
from kernels.contexts_nb import new_block_scratch_nb
from kernels.dispatch_nb import RANDOM_ID, choose_card_nb, shown_to_nb
from kernels.duel_nb import play_duel_nb
from kernels.enums import (
    CARD_FACE,
    CARD_SUIT,
    CHIAMATA_PLAYERS,
    FACE_HONOUR_BIT,
    FIRST_LEAD_CALLER,
    HAND_SIZE,
    MAX_AUCTION,
    MAX_HAND,
    MAX_PLAYERS,
    MAX_TABLE,
    N_CARDS,
    NO_CARD,
    NO_SEAT,
    PARTNER_VIEW_LAST3,
    PHASE_PLAY,
    RULE_FIRST_LEAD,
    RULE_PARTNER_VIEW,
    RULE_SIGNALS,
    SIGNALS_TRUMPS,
    TOTAL_POINTS,
)
from kernels.rng_nb import start_streams_nb
from kernels.rules_nb import deal_nb, draw_round_nb, n_sides_nb, score_trick_nb, seat_after_nb, winner_side_nb

DEALS_PER_BLOCK = 256  # deals one thread plays with one set of work arrays, at most
MIN_BLOCKS = 64  # a batch is cut into this many blocks at least, where it can be


@njit(cache=True, inline="always")
def start_view_nb(view, deal, work, rules):
    """Puts a freshly dealt deal on the table: live hands and the public part of the view.
    Every seat's row is reset, those beyond the table too: a replay may mix tables."""
    hands, n_hand, points = work.hands, work.n_hand, work.points
    players = deal.players
    for seat in range(players):
        n_hand[seat] = deal.hand_size
        for k in range(MAX_HAND):
            hands[seat, k] = deal.hands[seat, k]
    for seat in range(MAX_PLAYERS):
        points[seat] = 0
        view.points[seat] = 0
        view.partner_trumps[seat] = NO_CARD
        for k in range(HAND_SIZE):
            view.partner_hands[seat, k] = NO_CARD
    work.partner = NO_SEAT
    open_auction_nb(view, rules, players)
    view.players = players
    view.trump_suit = CARD_SUIT[deal.briscola] if deal.briscola >= 0 else -1  # Chiamata: once called
    view.briscola = deal.briscola
    view.face_up = deal.briscola
    view.face_up_holder = NO_SEAT
    view.removed_two = deal.removed[0] if players == 3 else NO_CARD
    view.stock_size = deal.n_stock
    view.trick = 0
    view.leader = 0
    view.n_table = 0
    for k in range(MAX_TABLE):
        view.table[k] = NO_CARD
    view.n_played = 0
    for card in range(N_CARDS):  # a loop becomes one vector fill; ``[:] =`` did not
        view.played_by[card] = NO_CARD
        view.history[card] = NO_CARD
    for trick in range(N_CARDS // 2):
        view.trick_winners[trick] = NO_SEAT


@njit(cache=True, inline="always")
def show_seat_nb(view, seat, players, hands, n_hand, partners_visible, signalled):
    """Fills in the private part of the view for ``seat``: its hand and, where the rules
    show them, its partners' cards and their trump signals."""
    view.seat = seat
    view.n_hand = n_hand[seat]
    for k in range(MAX_HAND):
        view.hand[k] = hands[seat, k]
    if partners_visible:
        for other in range(players):
            shown = other != seat and other % 2 == seat % 2
            for k in range(HAND_SIZE):  # partners are shown at 4 and 6 players: 3 cards at most
                view.partner_hands[other, k] = hands[other, k] if shown else NO_CARD
    if signalled:
        for other in range(players):
            shown = other != seat and other % 2 == seat % 2
            view.partner_trumps[other] = trump_honours_nb(hands, n_hand, other, view.trump_suit) if shown else NO_CARD


@njit(cache=True, inline="always")
def trump_honours_nb(hands, n_hand, seat, trump_suit):
    """The trump honours in ``seat``'s hand, as FACE_HONOUR_BIT bits."""
    bits = 0
    for k in range(n_hand[seat]):
        card = hands[seat, k]
        bits |= FACE_HONOUR_BIT[CARD_FACE[card]] if CARD_SUIT[card] == trump_suit else 0
    return bits


@njit(cache=True, inline="always")
def take_from_hand_nb(hands, n_hand, seat, card, width):
    """Removes ``card`` from the seat's hand (later cards move up); False if not there.
    ``width``: the most cards a hand holds at the table (HAND_SIZE, or MAX_HAND at
    Briscola Chiamata), given as a constant so that the loops unroll: looking through 8
    slots where 3 suffice made 3-player deals a quarter slower.

    Branch-free: which slot a random player picks is unpredictable, so the slot is found
    by arithmetic on the comparisons (cards in a hand are distinct) and the hand is
    closed up with selects, where an early-exit search would mispredict most times.
    """
    n = n_hand[seat]
    found = 0
    slot = 0
    for k in range(width):
        match = (hands[seat, k] == card) & (k < n)
        found += match
        slot += k * match
    if found == 0:
        return False
    for k in range(width - 1):
        hands[seat, k] = hands[seat, k + 1] if k >= slot else hands[seat, k]
    hands[seat, n - 1] = NO_CARD
    n_hand[seat] = n - 1
    return True


@njit(cache=True, _nrt=False)
def play_deal_nb(deal, run, scratch, result, record, illegal):
    """Plays one dealt deal to the end and writes how it ended into ``result``.

    ``run`` (a RunContext) says who plays it and how; ``scratch`` (a BlockScratch) holds
    the engine's view, then the copy a plug-in gets for each decision (with
    ``sealed_params``, its parameters' copy), and the engine's own hands, table and
    points (``work``). ``record`` (PLAY_DTYPE) receives every card and trick winner. A
    decision that is not a card in hand stops the deal and is written into ``illegal``;
    returns False then, as it does when ``run.stop[0]`` is set (checked before every
    decision: a stop request waits for one decision at most, however slow the strategy).

    Compiled without reference counting (``_nrt=False``: nothing here allocates), as
    are its callers: otherwise every call and every inlined helper taking arrays would
    pay atomic increments and decrements, a sizeable share of the time of a deal.
    """
    view, work = scratch.views[0], scratch.work[0]
    start_view_nb(view, deal, work, run.rules)
    players = deal.players
    first_leader = 0
    if players == CHIAMATA_PLAYERS:
        status = run_auction_nb(run, scratch, record, illegal)
        if status == AUCTION_THROWN_IN:
            score_thrown_in_nb(result)
            return True
        if status == AUCTION_DONE:
            status = make_call_nb(run, scratch, illegal)
        if status != AUCTION_DONE:
            return False
        first_leader = view.caller if run.rules[RULE_FIRST_LEAD] == FIRST_LEAD_CALLER else 0
    done = _play_tricks_nb(deal, run, scratch, record, illegal, first_leader)
    if done and players == CHIAMATA_PLAYERS:
        score_chiamata_nb(view, work, run.rules, result)
    elif done:
        score_nb(work.points, players, result)
    return done


@njit(cache=True, _nrt=False)
def _play_tricks_nb(deal, run, scratch, record, illegal, first_leader):
    """The tricks of a deal for any table, ``first_leader`` leading the first; False
    after an illegal decision or a stop."""
    players = deal.players
    n_tricks = (deal.hand_size * players + deal.n_stock) // players
    leader = first_leader
    for trick in range(n_tricks):
        leader = _play_trick_nb(deal, run, scratch, record, illegal, trick, leader)
        if leader == NO_SEAT:
            return False
    return True


@njit(cache=True, inline="always")
def _play_trick_nb(deal, run, scratch, record, illegal, trick, leader):
    """Plays trick ``trick`` led by ``leader``: first everyone draws for the previous trick
    (its winner, now the leader, first), then each seat plays a card. Returns the
    trick's winner, or NO_SEAT after an illegal decision or a stop request."""
    view, work = scratch.views[0], scratch.work[0]
    players = deal.players
    begin_trick_nb(deal, view, work, trick, leader)
    partners_visible, signalled = trick_shows_nb(deal, run.rules, trick)
    for k in range(players):
        seat = seat_after_nb(leader, k, players)
        if run.stop[0] != 0:
            return NO_SEAT
        show_turn_nb(view, work, seat, partners_visible, signalled)
        card = _decide_card_nb(run, scratch, seat)
        if not play_card_nb(view, work, record, trick * players + k, seat, card):
            report_illegal_nb(illegal, trick * players + k, seat, card, work.hands[seat])
            return NO_SEAT
    return end_trick_nb(view, work, record, trick, leader)


@njit(cache=True, inline="always")
def begin_trick_nb(deal, view, work, trick, leader):
    """Trick ``trick`` led by ``leader``: everyone draws for the previous trick (the
    leader first), and the view shows the new trick."""
    players, n_stock = deal.players, deal.n_stock
    drawn = min(trick * players, n_stock)  # cards drawn once this trick's draw is done
    if trick > 0 and trick * players <= n_stock:
        draw_round_nb(deal.stock, drawn - players, work.hands, work.n_hand, leader, players)
        view.stock_size = n_stock - drawn
        if drawn == n_stock:  # the face-up briscola was the round's last card: the last to draw took it
            view.briscola = NO_CARD
            view.face_up_holder = seat_after_nb(leader, players - 1, players)
    view.trick = trick
    view.leader = leader


@njit(cache=True, inline="always")
def trick_shows_nb(deal, rules, trick):
    """What the rules show a seat during trick ``trick`` at team tables: its partners'
    cards (partner_view=last3, once the stock is out) and their trump signals."""
    players, n_stock = deal.players, deal.n_stock
    teams = players == 4 or players == 6
    partners_visible = teams and rules[RULE_PARTNER_VIEW] == PARTNER_VIEW_LAST3 and trick * players >= n_stock
    signalled = teams and rules[RULE_SIGNALS] == SIGNALS_TRUMPS and trick > 0
    return partners_visible, signalled


@njit(cache=True, inline="always")
def show_turn_nb(view, work, seat, partners_visible, signalled):
    """The view as ``seat`` sees it when its turn to play comes."""
    players = view.players
    show_seat_nb(view, seat, players, work.hands, work.n_hand, partners_visible, signalled)
    if players == CHIAMATA_PLAYERS:
        show_partner_nb(view, seat, work)


@njit(cache=True, inline="always")
def end_trick_nb(view, work, record, trick, leader):
    """Scores the full trick: its winner takes its points and leads next; the table is
    cleared. Returns the winner."""
    winner = score_trick_nb(work.table, view.players, view.trump_suit, leader, work.points)
    view.points[winner] = work.points[winner]
    record.trick_winners[trick] = winner
    view.trick_winners[trick] = winner
    for k in range(view.players):
        view.table[k] = NO_CARD
    view.n_table = 0
    return winner


@njit(cache=True, inline="always")
def _decide_card_nb(run, scratch, seat):
    """``seat``'s card, from the engine's view, or from a sealed copy for a plug-in."""
    strategy, shown, shown_params, rng = shown_to_nb(run, scratch, seat)
    return choose_card_nb(strategy, shown, shown_params, rng, run)


@njit(cache=True, inline="always")
def play_card_nb(view, work, record, play, seat, card):
    """``seat`` plays ``card``, the deal's ``play``-th: out of its hand, onto the table, into
    the view and the record. False (nothing changed) if the card is not in its hand."""
    players = view.players
    chiamata = players == CHIAMATA_PLAYERS
    if chiamata:
        taken = take_from_hand_nb(work.hands, work.n_hand, seat, card, MAX_HAND)
    else:
        taken = take_from_hand_nb(work.hands, work.n_hand, seat, card, HAND_SIZE)
    if not taken:
        return False
    if chiamata and card == view.called:
        work.revealed = True
    k = view.n_table
    work.table[k] = card
    view.table[k] = card
    view.n_table = k + 1
    view.played_by[card] = seat
    view.history[play] = card
    view.n_played = play + 1
    record.plays[play] = card
    return True


@njit(cache=True)
def report_illegal_nb(illegal, play, seat, card, hand):
    illegal.play = play
    illegal.phase = PHASE_PLAY
    illegal.seat = seat
    illegal.card = card
    for k in range(MAX_HAND):
        illegal.hand[k] = hand[k]


@njit(cache=True, inline="always")
def score_nb(points, players, result):
    n_sides = n_sides_nb(players)
    for side in range(3):
        result.side_points[side] = -1
    for seat in range(MAX_PLAYERS):
        result.seat_points[seat] = -1
    for side in range(n_sides):
        result.side_points[side] = 0
    for seat in range(players):
        result.seat_points[seat] = points[seat]
        result.side_points[seat % n_sides] += points[seat]
    result.winner_side = winner_side_nb(result.side_points, n_sides)


@njit(cache=True)
def clear_record_nb(record):
    record.plays[:] = NO_CARD
    record.trick_winners[:] = NO_CARD
    record.n_auction = 0
    for k in range(MAX_AUCTION):
        record.auction_seats[k] = NO_SEAT
        record.auction_bids[k] = NO_SEAT


@njit(cache=True, nogil=True, parallel=True)
def simulate_nb(run, results, illegal, deals, records):
    """Deals and plays deals ``run.first_deal + i * run.deal_step`` for i in
    ``range(len(results))`` (a step above 1 picks, e.g., the k-th deal of every match);
    with ``run.dealt``, plays the given ``deals`` instead (audits, the same cards twice),
    deal i with the strategies' random streams of that deal index.

    ``deals`` and ``records`` are either empty or as long as ``results``: then they
    receive every deal's cards and moves (a trace). ``illegal[i]`` is written when deal i
    meets an illegal decision (the caller fills ``illegal["play"]`` with -1 first). Every
    deal's randomness comes from (seed, deal index) alone, so the results do not depend on
    the number of threads.

    ``results[i].deal`` is written once deal i is complete: a deal left unfinished, by
    an illegal decision or because ``run.stop[0]`` was set (from another thread: the GIL
    is released), keeps the value the caller gave it.

    Blocks of deals are spread over the threads; each block gets its own work arrays.
    The context goes into the loop boxed (``bind_nb``): Numba's parallel loop cannot take
    a namedtuple holding tuples of functions (kernels/contexts_nb.py). The loop is the
    entry itself, not called by one: each kernel a call links in is optimised again with
    its caller, and the engine is most of the compile.
    """
    n_deals = results.shape[0]
    held = bind_nb(run)
    # Small batches (of slow strategies) are cut finer, so that every thread gets work.
    # (Asking Numba for the thread count here would make this kernel uncachable.)
    block_size = max(1, min(DEALS_PER_BLOCK, n_deals // MIN_BLOCKS))
    n_blocks = (n_deals + block_size - 1) // block_size
    for block in prange(n_blocks):
        block_run = held.arguments
        start = block * block_size
        end = min(n_deals, start + block_size)
        scratch = new_block_scratch_nb(block_run.params.shape[1])
        _play_block_nb(block_run, scratch, start, end, results, illegal, deals, records)


@njit(cache=True, nogil=True, parallel=True)
def simulate_duels_nb(run, results):
    """``simulate_nb`` for the deals of the fast path (``is_duel_nb``: untraced 2-player
    deals between ``random`` and ``greedy``), with the same results and the same blocks.
    An entry of its own, so that a run on the fast path compiles only it, and a run of
    other strategies only the general path."""
    seed_key, first_deal, deal_step, _, _, rules, strategy_ids, params, _, _, seat_streams, stop = run
    n_deals = results.shape[0]
    block_size = max(1, min(DEALS_PER_BLOCK, n_deals // MIN_BLOCKS))
    n_blocks = (n_deals + block_size - 1) // block_size
    random0, random1 = strategy_ids[0] == RANDOM_ID, strategy_ids[1] == RANDOM_ID
    for block in prange(n_blocks):
        start = block * block_size
        end = min(n_deals, start + block_size)
        scratch = new_block_scratch_nb(params.shape[1])
        duel = (seed_key, first_deal, deal_step, rules, seat_streams, stop)
        if random0 and random1:  # constant flags: the compiler drops greedy's code from this copy
            _play_duels_nb(duel, scratch, start, end, results, True, True)
        else:
            _play_duels_nb(duel, scratch, start, end, results, random0, random1)


@njit(cache=True, _nrt=False)
def _play_block_nb(run, scratch, start, end, results, illegal, deals, records):
    """Plays deals ``start .. end - 1`` on one thread: deals them first unless ``run.dealt``
    (then ``deals`` holds them). Empty ``deals``/``records`` mean untraced: the scratch
    records are used instead. (Deals on the fast path are played by ``simulate_duels_nb``.)

    A block is the unit of work of a thread: its work arrays are made once by the
    caller. Compiled without reference counting, like ``play_deal_nb``.
    """
    n_seats = run.players if run.players > 0 else MAX_PLAYERS  # replayed deals: any table
    for i in range(start, end):
        if run.stop[0] != 0:
            return
        deal = deals[i] if deals.shape[0] > 0 else scratch.deal[0]
        record = records[i] if records.shape[0] > 0 else scratch.record[0]
        if records.shape[0] > 0:
            clear_record_nb(record)
        deal_index = run.first_deal + i * run.deal_step
        start_streams_nb(scratch.states, run.seed_key, deal_index, run.seat_streams, n_seats)
        if not run.dealt:
            deal_nb(run.players, run.rules, scratch.states, deal)
        results[i].briscola = deal.briscola
        if play_deal_nb(deal, run, scratch, results[i], record, illegal[i]):
            results[i].deal = deal_index


@njit(cache=True, _nrt=False)
def _play_duels_nb(duel, scratch, start, end, results, random0, random1):
    """Deals ``start .. end - 1`` on the fast path, on one thread. ``duel``: the run's
    seed key, first deal, deal step, rules, seat streams and stop flag;
    ``random0``/``random1``: whether each seat plays ``random``, else ``greedy``."""
    seed_key, first_deal, deal_step, rules, seat_streams, stop = duel
    deal = scratch.deal[0]
    states = scratch.states
    points = scratch.work[0].points
    for i in range(start, end):
        if stop[0] != 0:
            return
        deal_index = first_deal + i * deal_step
        start_streams_nb(states, seed_key, deal_index, seat_streams, 2)
        deal_nb(2, rules, states, deal)
        results[i].briscola = deal.briscola
        points[0] = play_duel_nb(deal, states[1], states[2], random0, random1)
        points[1] = TOTAL_POINTS - points[0]
        score_nb(points, 2, results[i])
        results[i].deal = deal_index
