"""The Universal Category System as sound libraries carry it: in file names
(``CatID_FXName_CreatorID_SourceID``) and in iXML fields (``CATID``, ``CATEGORY``,
``SUBCATEGORY``, ``FXNAME``, ``KEYWORDS``, read case-insensitively).

The official CatID list (CatID -> category, sub-category) is not shipped: its terms of use
could not be confirmed (the community copy has no licence file). A CatID is shown as it
is written; the category and sub-category come from the file's own iXML when it has them.

Headless: never imports textual.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

# A CatID is an upper-case category abbreviation followed by a capitalised sub-category
# abbreviation (``DOORWood``, ``AMBForst``, ``WATRSurf``); a user category may follow after
# a hyphen (``DOORWood-Squeak``). The four blocks are separated by underscores.
_CATID = re.compile(r"^(?P<cat>[A-Z]{2,})(?P<sub>[A-Z][a-z][A-Za-z0-9]*)(?:-(?P<user>[^_]+))?$")


@dataclass(frozen=True, slots=True)
class UcsFields:
    """What a file says about its UCS classification (empty strings where it says nothing)."""

    catid: str = ""
    category: str = ""
    subcategory: str = ""
    fx_name: str = ""
    creator: str = ""
    source: str = ""
    keywords: tuple[str, ...] = ()

    def merged(self, other: UcsFields) -> UcsFields:
        """These fields, with the blanks filled from ``other``."""
        return UcsFields(
            catid=self.catid or other.catid,
            category=self.category or other.category,
            subcategory=self.subcategory or other.subcategory,
            fx_name=self.fx_name or other.fx_name,
            creator=self.creator or other.creator,
            source=self.source or other.source,
            keywords=self.keywords or other.keywords,
        )


def is_catid(text: str) -> bool:
    """Whether ``text`` has the shape of a UCS CatID."""
    return _CATID.match(text) is not None


def from_file_name(stem: str) -> UcsFields:
    """The UCS blocks of a file name without its extension, or empty fields when the name
    does not start with a CatID block followed by at least a name block."""
    blocks = stem.split("_")
    if len(blocks) < 2 or not is_catid(blocks[0]):
        return UcsFields()
    return UcsFields(
        catid=blocks[0],
        fx_name=blocks[1].strip(),
        creator=blocks[2].strip() if len(blocks) > 2 else "",
        source="_".join(blocks[3:]).strip() if len(blocks) > 3 else "",
    )


def split_keywords(text: str) -> tuple[str, ...]:
    """Keywords as libraries write them: separated by commas or semicolons."""
    return tuple(word.strip() for word in re.split(r"[,;]", text) if word.strip())


def from_fields(fields: Mapping[str, str]) -> UcsFields:
    """The UCS fields among a file's embedded fields (any case; iXML's ``USER`` block and
    its ``ASWG`` block spell them differently, ``CATID`` and ``catId``)."""
    folded = {key.rsplit(".", 1)[-1].lower(): value for key, value in fields.items() if value}
    return UcsFields(
        catid=folded.get("catid", "").strip(),
        category=folded.get("category", "").strip(),
        subcategory=folded.get("subcategory", "").strip(),
        fx_name=folded.get("fxname", "").strip(),
        creator=(folded.get("designer") or folded.get("creatorid") or "").strip(),
        source=(folded.get("library") or folded.get("sourceid") or "").strip(),
        keywords=split_keywords(folded.get("keywords", "")),
    )
