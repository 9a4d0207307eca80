"""The engine's one observer and the match's memory: kept rounds, how a match ended,
and what each viewer sees at every step of a replayed match."""

from __future__ import annotations

import random

import pytest

from pbem.engine import (
    Claim,
    FullView,
    Match,
    PublicView,
    Resign,
    SeatView,
    Termination,
    Timeout,
    Viewer,
    observe,
)
from pbem.engine.views import HiddenError, view_to_json


def _random_states(seed: int) -> list[Match]:
    """Every state of one match played to its end by random legal moves."""
    rng = random.Random(seed)
    state = Match.new(bytes([seed]) * 32)
    states = [state]
    while not state.is_over:
        state = state.apply(rng.choice(state.legal_moves()))
        states.append(state)
    return states


def test_a_match_keeps_each_finished_round_as_it_ended():
    states = _random_states(1)
    final = states[-1]
    assert len(final.rounds) == len(final.results) >= 2
    for kept, result in zip(final.rounds, final.results, strict=True):
        assert kept.is_over and kept.result() == result
    ends = [s for s in states[1:] if s.ended_round is not None]
    assert [s.ended_round for s in ends] == list(final.rounds)
    for s in ends:
        assert s.ended_result == s.results[-1] and s.shown_round is s.ended_round
    assert final.shown_round is final.round


def test_a_move_that_ends_nothing_has_no_ended_round():
    m = Match.new(bytes(32))
    after = m.apply(m.legal_moves()[0])
    assert after.ended_round is None and after.ended_result is None
    assert after.shown_round is after.round


def test_the_outcome_says_how_the_match_ended():
    assert Match.new(bytes(32)).outcome() is None
    sealed = _random_states(2)[-1].outcome()
    assert sealed is not None and sealed.termination is Termination.SEALS
    assert sealed.seals[sealed.winner] == 2 and sealed.resigned is None and sealed.claimed is None

    resigned = Match.new(bytes(32)).apply(Resign(), 1).outcome()
    assert resigned is not None
    assert (resigned.termination, resigned.winner, resigned.resigned) == (
        Termination.RESIGNATION,
        0,
        1,
    )

    m = Match.new(bytes(32))
    late = m.to_move
    assert late is not None
    overdue = m.apply(Timeout(), late)
    assert overdue.outcome() is None  # a timeout ends nothing
    claimed = overdue.apply(Claim(), 1 - late).outcome()
    assert claimed is not None
    assert (claimed.termination, claimed.winner, claimed.claimed) == (
        Termination.CLAIM,
        1 - late,
        1 - late,
    )


def _hidden_of(seat: int, state: Match) -> tuple[list[str], list[int]]:
    r = state.shown_round
    return [c.word for c in r.hand(seat)], list(r.bonus_won[seat])


@pytest.mark.parametrize("seed", [3, 4])
def test_no_step_of_a_running_match_shows_a_viewer_the_others_hand_or_bonus_values(seed: int):
    states = _random_states(seed)
    for state in states[:-1]:  # the match runs until the last state
        for viewer in (Viewer.SEAT_0, Viewer.SEAT_1, Viewer.PUBLIC):
            seen = observe(state, viewer, step=True)
            view = seen.view
            data = view_to_json(view)  # type: ignore[arg-type]
            hidden_seats = (0, 1) if viewer is Viewer.PUBLIC else (1 - int(viewer),)
            for seat in hidden_seats:
                player = seen.player(seat)
                assert not player.bonus_known
                assert player.known_rupees == sum(state.shown_round.goods_won[seat])
                other = data["players"][seat] if viewer is Viewer.PUBLIC else data["opponent"]
                assert set(other) == {"seat", "hand_size", "herd", "goods_tokens", "bonus_count"}
            if isinstance(view, SeatView):
                hand, bonus = _hidden_of(view.seat, state)
                assert [c.word for c in view.me.hand] == hand
                assert list(view.me.bonus_tokens) == bonus
            else:
                assert isinstance(view, PublicView)
            assert "deck" not in data["table"] and "bonus" not in data["table"]
        with pytest.raises(HiddenError):
            observe(state, Viewer.ALL, step=True)


def test_a_step_that_ends_a_round_shows_that_round_scored_to_every_viewer():
    states = _random_states(5)
    for state in states[1:]:
        for viewer in (Viewer.SEAT_0, Viewer.SEAT_1, Viewer.PUBLIC):
            seen = observe(state, viewer, step=True)
            assert seen.round_ended == state.ended_result
            assert seen.view.table.round == state.shown_round.number
            if state.ended_round is not None:
                assert seen.view.table.round_over


def test_everything_is_seen_once_the_match_is_over_or_its_seed_is_published():
    states = _random_states(6)
    final = observe(states[-1], Viewer.ALL)
    assert isinstance(final.view, FullView) and final.outcome == states[-1].outcome()
    middle = observe(states[10], Viewer.ALL, seed_published=True, step=True)
    assert isinstance(middle.view, FullView)
    r = states[10].shown_round
    assert middle.view.deck == r.deck_cards()
    assert [p.hand for p in middle.view.players] == [r.hand(0), r.hand(1)]
    assert all(p.bonus_known for p in (middle.player(0), middle.player(1)))


def test_the_live_observer_agrees_with_the_seat_and_public_views():
    from pbem.engine import public_view, seat_view

    state = _random_states(7)[30]
    assert observe(state, Viewer.SEAT_0).view == seat_view(state, 0)
    assert observe(state, Viewer.SEAT_1).view == seat_view(state, 1)
    assert observe(state, Viewer.PUBLIC).view == public_view(state)


def test_pages_get_the_rules_they_show_from_the_view():
    view = observe(Match.new(bytes(32)), Viewer.SEAT_0).view
    assert isinstance(view, SeatView)
    assert view.me.hand_limit == 7
    assert [(p.size, p.or_more) for p in view.table.bonus_piles] == [
        (3, False),
        (4, False),
        (5, True),
    ]
