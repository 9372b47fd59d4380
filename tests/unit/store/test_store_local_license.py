"""The licence-record builder shared by `add`, the demo and the benchmarks matches foley."""

from __future__ import annotations

import dataclasses

import pytest

from foley_tui.store.local import LICENSE_DEFAULTS, license_record


def test_keys_are_foleys_license_record_fields_in_order() -> None:
    from foley.base import LicenseRecord

    fields = [f.name for f in dataclasses.fields(LicenseRecord)]
    assert list(LICENSE_DEFAULTS) == fields
    record = license_record(source="user", commercial_ok=True)
    assert list(record) == fields
    assert (record["source"], record["commercial_ok"], record["license_id"]) == (
        "user",
        True,
        "unknown",
    )


def test_records_do_not_share_mutable_defaults() -> None:
    one, two = license_record(), license_record()
    one["transformations"].append("trim")
    one["generation_params"]["seed"] = 1
    assert two["transformations"] == [] and two["generation_params"] == {}
    assert LICENSE_DEFAULTS["transformations"] == []


def test_an_unknown_field_is_an_error() -> None:
    with pytest.raises(KeyError, match="licence_id"):
        license_record(licence_id="CC0-1.0")
