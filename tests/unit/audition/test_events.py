"""Scene-event groups in the headless listing: whole-dict identity, headers, e / E."""

from __future__ import annotations

from foley_tui.audition.events import EventInfo, event_key, grouped, header, is_header
from foley_tui.audition.listing import STATUS_FILTERS, UNPICKED_EVENTS, Listing, ViewSettings
from foley_tui.domain import Pick, Row

SLAM_A = {"query": "a door slams shut", "layer": "sfx_fg", "onset": "on 'slammed'"}
SLAM_B = {"query": "a door slams shut", "layer": "sfx_fg", "onset": "on 'door'"}
RAIN = {"query": "rain on a roof", "layer": "ambience", "onset": None}


def make() -> Listing:
    listing = Listing()
    listing.set_rows([Row(f"s{i}", i, f"sound {i}", float(i)) for i in range(6)])
    listing.set_events({"s0": SLAM_A, "s1": RAIN, "s2": SLAM_B, "s3": SLAM_A, "s5": RAIN})
    return listing


def test_two_slams_at_different_words_stay_two_groups() -> None:
    listing = make()
    view = listing.apply(ViewSettings())
    assert view == [
        header(event_key(SLAM_A)), "s0", "s3",
        header(event_key(RAIN)), "s1", "s5",
        header(event_key(SLAM_B)), "s2",
        "s4",  # no event: after the groups, without a header
    ]  # fmt: skip
    assert EventInfo.of(SLAM_A).query == "a door slams shut"


def test_sort_and_filter_apply_within_groups() -> None:
    listing = make()
    view = listing.apply(ViewSettings(sort="duration"))
    assert view[:3] == [header(event_key(SLAM_A)), "s0", "s3"]
    view = listing.apply(ViewSettings(query="sound 5"))
    assert view == [header(event_key(RAIN)), "s5"]


def test_progress_next_event_and_headers_are_never_undecided_rows() -> None:
    listing = make()
    listing.decisions.picks["s3"] = Pick("s3")
    view = listing.apply(ViewSettings())
    assert listing.progress(event_key(SLAM_A)) == (1, 2)
    assert listing.next_event(1, 1) == view.index("s1")
    assert listing.next_event(view.index("s5"), -1) == view.index("s0")
    assert listing.next_event(view.index("s2"), 1) is None
    assert all(
        not is_header(view[i]) for i in range(len(view)) if listing.next_undecided(i - 1) == i
    )
    assert listing.candidate_at(0) == 1 and listing.candidate_at(3, -1) == 2


def test_no_events_keep_the_flat_list() -> None:
    assert grouped(["a", "b"], {}) == ["a", "b"]


def test_the_placement_of_a_pick_is_its_own_else_the_events() -> None:
    listing = make()
    listing.decisions.picks["s0"] = Pick("s0", layer="stinger")
    listing.decisions.picks["s4"] = Pick("s4")  # no event: plan's default layer, no cue
    listing.decisions.picks["s1"] = Pick("s1", onset=3.35)
    s0 = listing.placement("s0")
    assert s0 is not None and (s0.layer, s0.onset) == ("stinger", "on 'slammed'")
    assert s0.layer_chosen and not s0.onset_chosen
    s4 = listing.placement("s4")
    assert s4 is not None and (s4.layer, s4.onset, s4.layer_chosen) == ("sfx_fg", None, False)
    s1 = listing.placement("s1")
    assert s1 is not None and (s1.layer, s1.onset, s1.onset_chosen) == ("ambience", "3.35", True)
    assert listing.placement("s2") is None  # not picked


def test_without_the_events_read_only_a_complete_pick_has_a_placement() -> None:
    listing = Listing()
    listing.set_rows([Row("a", 0, "a", 1.0), Row("b", 1, "b", 1.0)])
    listing.decisions.picks["a"] = Pick("a", layer="music")
    listing.decisions.picks["b"] = Pick("b", layer="music", onset=1.0)
    assert listing.placement("a") is None
    b = listing.placement("b")
    assert b is not None and b.layer_chosen and b.onset_chosen


def test_the_filter_events_without_a_pick() -> None:
    listing = make()
    listing.decisions.picks["s3"] = Pick("s3")  # SLAM_A has a pick now
    view = listing.apply(ViewSettings(status_filter=UNPICKED_EVENTS))
    assert view == [header(event_key(RAIN)), "s1", "s5", header(event_key(SLAM_B)), "s2"]
    assert UNPICKED_EVENTS in STATUS_FILTERS  # `f` cycles to it
