"""One test per rule of docs/rules.md; each fails if its rule is broken."""

from __future__ import annotations

import pytest

from pbem.engine import (
    Card,
    Exchange,
    IllegalMoveError,
    Match,
    Sell,
    TakeCamels,
    TakeGood,
    parse_move,
)
from pbem.engine.cards import SHUFFLED_CARDS
from pbem.engine.round import Round

from .builders import cards, counts, make_match, make_round

D, G, S, CL, SP, L, C = (Card(i) for i in range(7))


def illegal(r: Round | Match, text: str, code: str) -> IllegalMoveError:
    with pytest.raises(IllegalMoveError) as info:
        r.apply(parse_move(text))
    assert info.value.code == code, str(info.value)
    return info.value


# ----------------------------------------------------------------- set-up


def test_deal_gives_five_each_and_completes_the_market_with_two_cards():
    deck = tuple(int(c) for c in SHUFFLED_CARDS)  # unshuffled: 6 diamond, 6 gold, …
    r = Round.from_parts(1, 1, deck, ((1,), (4,), (8,)))
    assert r.hands[1] == counts("diamond diamond diamond diamond diamond")  # the starter first
    assert r.hands[0] == counts("diamond gold gold gold gold")
    assert r.market == counts("camel camel camel gold gold")
    assert r.deck_size == 40
    assert r.cards_in_play() == 52 + 3


def test_camels_dealt_into_a_hand_go_to_the_herd():
    deck = tuple(int(c) for c in cards("camel camel diamond gold silver") * 1) + tuple(
        int(c) for c in SHUFFLED_CARDS[5:]
    )
    r = Round.from_parts(1, 0, deck, ((1,), (4,), (8,)))
    assert r.herds[0] == 2
    assert r.hands[0][C] == 0
    assert r.hand_size(0) == 3


def test_round_one_starter_comes_from_the_seed_unless_chosen():
    seed = bytes(32)
    assert Match.new(seed).to_move == 0  # shuffle-vectors.json: first_player 0
    assert Match.new(seed, first_player=1).to_move == 1


def test_goods_token_piles_start_open_with_the_highest_value_on_top():
    r = Match.new(bytes(32)).round
    assert r.tokens_left(D) == (7, 7, 5, 5, 5)
    assert r.tokens_left(L) == (4, 3, 2, 1, 1, 1, 1, 1, 1)


# ------------------------------------------------------- take: exchange


def test_exchange_takes_goods_and_gives_hand_cards_and_camels_to_the_market():
    r = make_round(
        hands=("cloth leather", ""), herds=(2, 0), market="diamond gold silver spice camel"
    )
    after = r.apply(parse_move("exchange diamond gold silver for cloth camel camel"))
    assert after.hands[0] == counts("diamond gold silver leather")
    assert after.herds[0] == 0
    assert after.market == counts("cloth spice camel camel camel")
    assert after.deck_size == r.deck_size  # no refill after an exchange
    assert after.to_move == 1


def test_exchange_is_never_one_for_one():
    r = make_round(hands=("cloth", ""), market="diamond gold silver spice camel")
    illegal(r, "exchange diamond for cloth", "exchange_too_few")


def test_exchange_gives_back_as_many_cards_as_it_takes():
    r = make_round(hands=("cloth cloth cloth", ""), market="diamond gold silver spice camel")
    illegal(r, "exchange diamond gold for cloth cloth cloth", "exchange_unequal")


def test_exchange_cannot_take_and_give_the_same_type():
    r = make_round(hands=("spice leather", ""), market="spice gold silver leather camel")
    error = illegal(r, "exchange spice gold for spice leather", "exchange_same_type")
    assert "spice" in str(error)


def test_exchange_never_takes_camels():
    r = make_round(hands=("cloth cloth", ""), market="camel camel gold silver spice")
    with pytest.raises(IllegalMoveError) as info:
        r.apply(Exchange((C, G), (CL, CL)))
    assert info.value.code == "exchange_camel_taken"


def test_exchange_pays_only_with_camels_in_the_herd():
    r = make_round(hands=("", ""), herds=(1, 0), market="diamond gold silver spice camel")
    illegal(r, "exchange diamond gold for camel camel", "not_in_herd")


def test_exchange_gives_only_cards_in_hand():
    r = make_round(hands=("cloth", ""), market="diamond gold silver spice camel")
    illegal(r, "exchange diamond gold for cloth cloth", "not_in_hand")


def test_exchange_takes_only_cards_in_the_market():
    r = make_round(hands=("cloth cloth", ""), market="diamond gold silver spice camel")
    illegal(r, "exchange diamond diamond for cloth cloth", "not_in_market")


def test_exchange_that_would_leave_eight_cards_in_hand_is_refused():
    r = make_round(
        hands=("cloth cloth cloth cloth cloth cloth", ""),
        herds=(2, 0),
        market="diamond gold silver spice camel",
    )
    error = illegal(r, "exchange diamond gold for camel camel", "hand_limit_exchange")
    assert "8" in str(error)
    # giving one camel and one cloth keeps the hand at 7: allowed
    after = r.apply(parse_move("exchange diamond gold for cloth camel"))
    assert after.hand_size(0) == 7


# -------------------------------------------------------- take: one good


def test_take_one_good_then_refill_from_the_top_of_the_deck():
    r = make_round(market="camel camel camel diamond gold", deck="silver leather")
    after = r.apply(TakeGood(D))
    assert after.hands[0] == counts("diamond")
    assert after.market == counts("camel camel camel gold silver")
    assert after.deck_cards() == (L,)


def test_take_one_good_is_impossible_with_seven_cards_in_hand():
    r = make_round(hands=("cloth cloth cloth cloth cloth cloth cloth", ""))
    error = illegal(r, "take diamond", "hand_limit_take")
    assert str(error) == "you hold 7 cards: taking one more would exceed the hand limit of 7"


def test_take_one_good_needs_that_good_in_the_market():
    r = make_round(market="camel camel camel diamond gold")
    illegal(r, "take silver", "not_in_market")


def test_camels_in_the_herd_do_not_count_toward_the_hand_limit():
    r = make_round(hands=("cloth cloth cloth cloth cloth cloth", ""), herds=(9, 0))
    assert r.apply(TakeGood(D)).hand_size(0) == 7


# ------------------------------------------------------ take: all camels


def test_take_camels_takes_all_of_them_and_refills_as_many():
    r = make_round(market="camel camel camel diamond gold", deck="silver spice leather cloth")
    after = r.apply(TakeCamels())
    assert after.herds[0] == 3
    assert after.market == counts("diamond gold silver spice leather")
    assert after.deck_cards() == (CL,)


def test_take_camels_needs_a_camel_in_the_market():
    r = make_round(market="diamond gold silver spice leather")
    illegal(r, "camels", "no_camels_in_market")


def test_take_camels_is_allowed_with_seven_cards_in_hand():
    r = make_round(hands=("cloth cloth cloth cloth cloth cloth cloth", ""))
    assert r.apply(TakeCamels()).herds[0] == 3


def test_only_the_seat_to_move_may_move():
    r = make_round(to_move=1)
    with pytest.raises(IllegalMoveError) as info:
        r.apply(TakeCamels(), seat=0)
    assert info.value.code == "not_your_turn"


# ------------------------------------------------------------------ sell


def test_sell_takes_tokens_from_the_top_of_the_pile():
    r = make_round(hands=("cloth cloth", ""))
    after = r.apply(Sell(CL, 2))
    assert after.goods_won[0] == (5, 3)
    assert after.tokens_left(CL) == (3, 2, 2, 1, 1)
    assert after.discard == counts("cloth cloth")
    assert after.hands[0] == counts("")


def test_precious_goods_are_sold_two_at_a_time():
    for good in ("diamond", "gold", "silver"):
        r = make_round(hands=(f"{good} {good}", ""))
        error = illegal(r, f"sell 1 {good}", "sell_too_few_precious")
        assert str(error) == f"{good} must be sold at least 2 at a time"


def test_two_silver_may_be_sold_when_one_silver_token_is_left():
    r = make_round(hands=("silver silver", ""), tokens_left={"silver": 1})
    after = r.apply(Sell(S, 2))
    assert after.goods_won[0] == (5,)
    assert after.tokens_left(S) == ()
    assert after.discard == counts("silver silver")


def test_one_silver_may_not_be_sold_even_when_one_token_is_left():
    r = make_round(hands=("silver", ""), tokens_left={"silver": 1})
    illegal(r, "sell 1 silver", "sell_too_few_precious")


def test_a_good_whose_tokens_are_gone_can_still_be_sold():
    r = make_round(hands=("leather leather", ""), tokens_left={"leather": 0})
    after = r.apply(Sell(L, 2))
    assert after.goods_won[0] == ()
    assert after.hands[0] == counts("")
    assert after.discard == counts("leather leather")


def test_sell_only_cards_in_hand():
    r = make_round(hands=("cloth", ""))
    illegal(r, "sell 2 cloth", "not_in_hand")


def test_sell_one_type_of_good_only():
    with pytest.raises(ValueError, match="one type"):
        parse_move("sell cloth spice")


def test_camels_are_never_sold():
    with pytest.raises(ValueError, match="never sold"):
        parse_move("sell 2 camel")
    r = make_round(herds=(3, 0))
    with pytest.raises(IllegalMoveError):
        r.apply(Sell(C, 2))


@pytest.mark.parametrize(("n", "pile"), [(3, 0), (4, 1), (5, 2), (6, 2), (7, 2)])
def test_sales_of_three_four_five_or_more_earn_the_matching_bonus(n: int, pile: int):
    bonus = ((1, 2), (4, 5), (8, 9))
    r = make_round(hands=(" ".join(["leather"] * n), ""), bonus=bonus)
    after = r.apply(Sell(L, n))
    assert after.bonus_won[0] == (bonus[pile][0],)
    assert after.bonus_left((3, 4, 5)[pile]) == (bonus[pile][1],)


def test_sales_of_one_or_two_earn_no_bonus():
    r = make_round(hands=("leather leather", ""))
    assert r.apply(Sell(L, 2)).bonus_won[0] == ()


def test_bonus_is_earned_even_when_fewer_goods_tokens_than_cards_were_left():
    r = make_round(hands=("cloth cloth cloth", ""), tokens_left={"cloth": 1})
    after = r.apply(Sell(CL, 3))
    assert after.goods_won[0] == (1,)
    assert len(after.bonus_won[0]) == 1


def test_no_bonus_once_the_pile_has_run_out():
    r = make_round(hands=("cloth cloth cloth", ""), bonus=((), (4,), (8,)))
    after = r.apply(Sell(CL, 3))
    assert after.bonus_won[0] == ()
    assert after.goods_won[0] == (5, 3, 3)


# ---------------------------------------------------------- end of round


def test_round_ends_at_once_when_a_sale_empties_the_third_pile():
    r = make_round(
        hands=("cloth", ""),
        tokens_left={"diamond": 0, "gold": 0, "cloth": 1},
    )
    after = r.apply(Sell(CL, 1))
    assert after.end == "piles"


def test_two_empty_piles_do_not_end_the_round():
    r = make_round(hands=("cloth", ""), tokens_left={"diamond": 0, "cloth": 1})
    assert r.apply(Sell(CL, 1)).end is None


def test_round_ends_when_the_market_cannot_be_refilled_after_placing_what_the_deck_has():
    r = make_round(market="camel camel camel diamond gold", deck="silver")
    after = r.apply(TakeCamels())
    assert after.end == "deck"
    assert after.market == counts("diamond gold silver")  # the one card was placed first
    assert after.deck_size == 0


def test_a_deck_that_runs_out_exactly_as_the_market_is_completed_ends_nothing_yet():
    r = make_round(market="camel camel camel diamond gold", deck="silver spice leather")
    after = r.apply(TakeCamels())
    assert after.end is None
    assert after.deck_size == 0
    # the next refill that is needed ends it
    done = after.apply(TakeGood(D))
    assert done.end == "deck"


def test_an_exchange_never_ends_the_round_on_an_empty_deck():
    r = make_round(hands=("cloth cloth", ""), market="diamond gold silver spice leather", deck="")
    assert r.apply(parse_move("exchange diamond gold for cloth cloth")).end is None


def test_no_move_after_the_round_is_over():
    r = make_round(market="camel camel camel diamond gold", deck="")
    over = r.apply(TakeCamels())
    with pytest.raises(IllegalMoveError) as info:
        over.apply(TakeGood(D))
    assert info.value.code == "round_over"
    assert over.legal_moves() == []


# ------------------------------------------------------------ scoring


def _ended(**kwargs) -> Round:
    r = make_round(**kwargs)
    r.end = "deck"
    return r


def test_camel_token_goes_to_the_larger_herd():
    res = _ended(herds=(4, 3), goods_won=((5,), (5,))).result()
    assert res.camel_token == 0
    assert res.scores == (10, 5)


def test_equal_herds_take_no_camel_token():
    res = _ended(herds=(3, 3), goods_won=((5,), (4,))).result()
    assert res.camel_token is None
    assert res.scores == (5, 4)


def test_score_adds_goods_bonus_and_camel_token_and_ignores_cards_left():
    res = _ended(
        hands=("diamond diamond diamond", ""),
        herds=(0, 1),
        goods_won=((7, 7), (5,)),
        bonus_won=((3,), (10,)),
    ).result()
    assert res.scores == (17, 20)
    assert res.seal == 1


def test_richer_player_wins_the_seal():
    assert _ended(goods_won=((6,), (5,))).result().seal == 0


def test_tie_on_rupees_goes_to_more_bonus_tokens():
    res = _ended(goods_won=((5, 5), (7,)), bonus_won=((1,), (1, 2))).result()
    assert res.scores == (11, 10)  # not a tie: control
    res = _ended(goods_won=((5, 4), (7,)), bonus_won=((1,), (1, 2))).result()
    assert res.scores == (10, 10)
    assert res.seal == 1


def test_tie_on_rupees_and_bonus_count_goes_to_more_goods_tokens():
    res = _ended(goods_won=((5, 4, 1), (5, 5)), bonus_won=((3,), (3,))).result()
    assert res.scores == (13, 13)
    assert res.seal == 0


def test_full_tie_awards_no_seal_and_the_other_player_starts_next():
    r = _ended(goods_won=((5, 5), (6, 4)), bonus_won=((3,), (3,)), starter=1)
    res = r.result()
    assert res.seal is None
    assert res.next_starter() == 0


def test_the_loser_of_a_round_starts_the_next():
    m = make_match(
        make_round(
            hands=("cloth", ""),
            goods_won=((), (9,)),
            tokens_left={"diamond": 0, "gold": 0, "cloth": 1},
        )
    )
    after = m.apply(Sell(CL, 1))
    assert after.results[0].seal == 1
    assert after.round.number == 2
    assert after.round.starter == 0
    assert after.to_move == 0


# -------------------------------------------------------------- match


def _match_point(seals: tuple[int, int]) -> Match:
    r = make_round(
        hands=("cloth", ""), goods_won=((9,), ()), tokens_left={"diamond": 0, "gold": 0, "cloth": 1}
    )
    return make_match(r, seals=seals)


def test_two_seals_win_the_match_at_once():
    after = _match_point((1, 1)).apply(Sell(CL, 1))
    assert after.is_over
    assert after.winner == 0
    assert after.seals == (2, 1)
    assert after.to_move is None
    assert after.legal_moves() == []
    with pytest.raises(IllegalMoveError) as info:
        after.apply(TakeCamels())
    assert info.value.code == "game_over"


def test_one_seal_deals_a_fresh_round():
    after = _match_point((0, 0)).apply(Sell(CL, 1))
    assert not after.is_over
    assert after.round.number == 2
    assert after.round.cards_in_play() == 55
    assert after.round.deck_size == 40


def test_a_full_tie_round_prolongs_the_match():
    r = make_round(
        hands=("cloth", ""),
        goods_won=((), (1,)),
        tokens_left={"diamond": 0, "gold": 0, "cloth": 1},
        starter=0,
    )
    after = make_match(r, seals=(1, 1)).apply(Sell(CL, 1))  # 1–1, no bonus, 1 token each
    assert after.results[-1].seal is None
    assert not after.is_over
    assert after.round.starter == 1


# ------------------------------------------------------- resignation


def test_either_seat_may_resign_and_the_other_wins_at_once():
    from pbem.engine import Resign

    m = Match.new(bytes(32))
    not_to_move = 1 - m.to_move
    after = m.apply(Resign(), seat=not_to_move)
    assert after.is_over and after.winner == m.to_move
    assert after.resigned == not_to_move
    assert Resign() not in m.legal_moves()
    with pytest.raises(IllegalMoveError) as info:
        m.apply(Resign())
    assert info.value.code == "resign_needs_seat"
    assert parse_move(" Resign ") == Resign()


# ------------------------------------------------------- timeouts


def test_a_timeout_lets_the_other_seat_claim_until_the_late_seat_moves():
    from pbem.engine import Claim, Timeout

    m = Match.new(bytes(32))
    late = m.to_move
    with pytest.raises(IllegalMoveError) as info:
        m.apply(Claim(), seat=1 - late)
    assert info.value.code == "claim_not_overdue"
    with pytest.raises(IllegalMoveError) as info:
        m.apply(Timeout(), seat=1 - late)
    assert info.value.code == "timeout_not_to_move"
    overdue = m.apply(Timeout(), seat=late)
    assert overdue.overdue == late and overdue.to_move == late
    with pytest.raises(IllegalMoveError):
        overdue.apply(Timeout(), seat=late)
    won = overdue.apply(Claim(), seat=1 - late)
    assert won.is_over and won.winner == 1 - late and won.claimed == 1 - late
    # the late seat moving first takes the chance of a claim away
    moved = overdue.apply(overdue.legal_moves()[0], seat=late)
    assert moved.overdue is None
    with pytest.raises(IllegalMoveError):
        moved.apply(Claim(), seat=1 - late)
    assert parse_move("claim the win") == Claim() and parse_move("timeout") == Timeout()
