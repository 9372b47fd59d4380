"""The list's filter/sort/status rules (headless)."""

from __future__ import annotations

from foley_tui.audition.listing import Listing, ViewSettings
from foley_tui.domain import Pick, Reject, Row


def make() -> Listing:
    listing = Listing()
    listing.set_rows(
        [
            Row("a", 0, "Rain on roof", 3.0, "freesound", "CC0", ("rain",), 0.5, 0.1),
            Row("b", 1, "door slam", 1.0, "bbc", "RemArc", ("door",), 0.9, None),
            Row("c", 2, "Wind", None, "sonniss", "", ("wind", "storm"), None, 0.25),
        ]
    )
    listing.decisions.picks = {"a": Pick("a", "music", 2.0), "c": Pick("c", "voice", None)}
    listing.decisions.rejects = {"b": Reject("b", "noisy")}
    return listing


def test_filter_matches_caption_tags_id_and_source() -> None:
    listing = make()
    assert listing.apply(ViewSettings(query="STORM")) == ["c"]
    assert listing.apply(ViewSettings(query="bbc")) == ["b"]
    assert listing.apply(ViewSettings(query="o")) == ["a", "b", "c"]
    assert listing.apply(ViewSettings(query="rain roof")) == ["a"]


def test_status_filter() -> None:
    listing = make()
    assert listing.apply(ViewSettings(status_filter="picked")) == ["a", "c"]
    assert listing.apply(ViewSettings(status_filter="rejected")) == ["b"]
    assert listing.apply(ViewSettings(status_filter="undecided")) == []


def test_sorts_put_unknowns_last() -> None:
    listing = make()
    assert listing.apply(ViewSettings(sort="caption")) == ["b", "a", "c"]
    assert listing.apply(ViewSettings(sort="duration")) == ["b", "a", "c"]
    assert listing.apply(ViewSettings(sort="score")) == ["b", "a", "c"]
    assert listing.apply(ViewSettings(sort="layer")) == ["c", "a", "b"]
    assert listing.apply(ViewSettings(sort="onset")) == ["a", "b", "c"]


def test_counts_and_cost_of_picks() -> None:
    listing = make()
    assert listing.counts() == (2, 1, 0, 3)
    assert listing.picks_cost() == 0.35


def test_view_settings_round_trip_and_tolerate_junk() -> None:
    settings = ViewSettings("x", "picked", "onset", True, True, -4.0, True)
    defaults = ViewSettings()
    assert ViewSettings.from_dict(settings.to_dict(), defaults) == settings
    junk = {"filter": 3, "status_filter": "maybe", "sort": "size", "volume_db": True}
    assert ViewSettings.from_dict(junk, defaults) == defaults


def test_scores_have_fixed_decimals_and_fit_the_column() -> None:
    from foley_tui.audition.text import format_score

    assert [format_score(s) for s in (None, 0.0325, 0.03, 0.85, 14.2, 1234.0)] == [
        "-",
        "0.033",
        "0.030",
        "0.850",
        "14.2",
        "1234",
    ]


def test_ghost_picks_show_last_under_all_and_picked_only() -> None:
    listing = Listing()
    listing.set_rows([Row("a", 0, "a", 1.0), Row("b", 1, "b", 1.0)])
    listing.decisions.picks["zz:ghost"] = Pick("zz:ghost")
    listing.decisions.picks["a"] = Pick("a")
    assert listing.ghosts() == ["zz:ghost"]
    assert listing.apply(ViewSettings()) == ["a", "b", "zz:ghost"]
    assert listing.apply(ViewSettings(status_filter="picked")) == ["a", "zz:ghost"]
    assert listing.apply(ViewSettings(status_filter="undecided")) == ["b"]
    assert listing.apply(ViewSettings(query="b")) == ["b"]
    assert listing.counts() == (1, 0, 1, 2)  # candidates only; ghosts counted apart


def test_marks_filter_rated_and_hide_hidden_unless_asked() -> None:
    from foley_tui.marks import Marks

    listing = make()
    listing.set_marks("a", Marks(rating=4))
    listing.set_marks("b", Marks(rating=2, hidden=True))
    listing.set_marks("c", Marks(rating=5))
    assert listing.apply(ViewSettings()) == ["a", "c"]  # b is hidden
    assert listing.apply(ViewSettings(status_filter="rejected")) == []
    assert listing.apply(ViewSettings(status_filter="hidden")) == ["b"]
    assert listing.apply(ViewSettings(status_filter="rated ≥ 3")) == ["a", "c"]
    assert listing.apply(ViewSettings(status_filter="rated ≥ 5")) == ["c"]
    assert listing.apply(ViewSettings(sort="rating")) == ["c", "a"]
    listing.set_marks("c", Marks())  # cleared: unrated, last
    listing.set_marks("b", Marks(rating=2))  # unhidden
    assert "c" not in listing.marks
    assert listing.apply(ViewSettings(sort="rating")) == ["a", "b", "c"]
    # Every filter value round-trips through the saved view.
    settings = ViewSettings(status_filter="rated ≥ 3", sort="rating")
    assert ViewSettings.from_dict(settings.to_dict(), ViewSettings()) == settings


def test_a_first_page_is_filtered_by_its_rows_only() -> None:
    """A reopen's first frame: one fetched page at its place in a big view of
    placeholders. Hidden rows of the page are left out, the placeholders stay, and only
    the fetched rows are looked up (the view is applied twice on the way to the first
    frame: a pass over every placeholder would make that frame grow with the session)."""
    from foley_tui.audition.events import PENDING
    from foley_tui.marks import Marks

    rows = [Row(f"s{i}", 5000 + i, f"sound {i}", 1.0, "bbc", "", (), None, None) for i in range(3)]
    listing = Listing()
    listing.set_page(rows, 5000, 100_000, 100_000, ViewSettings())
    looked_up: list[str] = []
    real = listing.is_hidden

    def is_hidden(sound_id: str) -> bool:
        looked_up.append(sound_id)
        return real(sound_id)

    listing.is_hidden = is_hidden  # type: ignore[method-assign]
    view = listing.apply(ViewSettings())
    assert len(view) == 100_000 and view[5000:5003] == ["s0", "s1", "s2"]
    assert view[4999] == PENDING and view[5003] == PENDING
    listing.marks = {"s1": Marks(hidden=True)}
    view = listing.apply(ViewSettings())
    assert len(view) == 99_999 and view[5000:5002] == ["s0", "s2"]
    assert view[4999] == PENDING and view[5002] == PENDING
    assert sorted(set(looked_up)) == ["s0", "s1", "s2"] and len(looked_up) == 6
