"""The asker's premise in a leading or negated yes/no question (issue 44): "A tattoo parlor can't open
in CG, can it?", "Isn't it true that I don't need any permit for a duplex in NM?".

``claim_of`` reads, once (``understand`` calls it), what the asker asserts about a use: that it is not
allowed, that it is allowed, or that it needs no permit. ``lead`` judges that claim against the permit
cells a chosen answer reads, so the answer's first line says whether the asker is right before the rule
itself. The cells decide; a cell the code conditions elsewhere (S, unread) judges nothing.
Pure functions; the patterns are general English, not the code's vocabulary.
"""

from __future__ import annotations

import re

NOT_ALLOWED = "not_allowed"
ALLOWED = "allowed"
NO_PERMIT = "no_permit"

# "isn't it true that X", "is it true that X", "am I right that X"
LEADING = re.compile(r"^\s*(?:(?:is(?:n'?t| not) it|is it) (?:true|the case|so)|am i (?:right|correct)|"
                     r"it'?s true)(?: that)?\s+(?P<claim>.+)$", re.I)
# "X, can it?", "X, right?", "X, isn't it?", "X, do I?", "X, is that right?": a claim, a comma, a tag asking
# to confirm it. A verb in the tag needs its pronoun ("..., can it?"): "is that allowed by right?" is no tag.
TAG = re.compile(r"^(?P<claim>.+?),\s*(?:right|correct|true|yes|no|is that (?:right|correct|true|so)|"
                 r"(?:can|can'?t|cannot|is|isn'?t|are|aren'?t|do|don'?t|does|doesn'?t|will|won'?t|would|wouldn'?t|"
                 r"should|shouldn'?t)\s+(?:it|i|they|we|you|he|she|one|there))\s*[?.!]*\s*$", re.I)
# "A, so B, right?": the claim is what the asker concludes (B).
SO = re.compile(r"(?:^|,\s*|\s)so\s+", re.I)
# A negated question leans the asker's way: "Isn't a duplex allowed in NM?", "Can't I open a bar in CE?" (the
# asker expects it is allowed).
NEGATED_ALLOWED = re.compile(r"^\s*(?:(?:is|are)(?:n'?t| not)\b.+\b(?:allowed|permitted)\b|"
                             r"(?:can'?t|cannot|can not) (?:i|we|you|they|one)\b)", re.I)
# What the claim says of the use (its first match decides: "can't", before "allowed").
SAYS_NO_PERMIT = re.compile(r"\b(?:(?:don'?t|do not|doesn'?t|does not|won'?t|will not|wouldn'?t|never) (?:need|require)s? "
                            r"(?:any |a |an )?(?:permit|approval|permission)|without (?:any |a |an )?(?:permit|approval)|"
                            r"no permit)\b", re.I)
SAYS_NOT_ALLOWED = re.compile(r"\b(?:can'?t|cannot|can not|isn'?t allowed|aren'?t allowed|not allowed|not permitted|"
                              r"prohibited|banned|forbidden|isn'?t permitted|aren'?t permitted)\b", re.I)
SAYS_ALLOWED = re.compile(r"\b(?:can|is allowed|are allowed|is permitted|are permitted|allowed|permitted|by right)\b", re.I)
# Permit levels of 17.22.020's legend that allow the use; "-" is not allowed.
ALLOWS = frozenset({"P", "MUP", "UP"})


def claim_of(text: str) -> str:
    """What a leading or negated yes/no question asserts about a use ("" when it asserts nothing)."""
    if NEGATED_ALLOWED.match(text.strip()) and not LEADING.match(text.strip()):
        return ALLOWED
    asserted = LEADING.match(text.strip())
    tagged = None if asserted else TAG.match(text.strip())
    claim = (asserted or tagged).group("claim") if (asserted or tagged) else ""
    claim = SO.split(claim)[-1]
    if not claim or "?" in claim.rstrip("?"):
        return ""
    no_permit, not_allowed = SAYS_NO_PERMIT.search(claim), SAYS_NOT_ALLOWED.search(claim)
    if no_permit and not_allowed:
        return ""  # "I can't keep chickens without a permit": a permit is needed, a claim not judged here
    if no_permit:
        return NO_PERMIT
    if not_allowed:
        return NOT_ALLOWED
    if SAYS_ALLOWED.search(claim):
        return ALLOWED
    return ""


def verdict(claim: str, values: list[str]) -> bool | None:
    """Whether the claim holds for the permit values of the cells asked; None when they do not say."""
    if not claim or not values or any(v not in ALLOWS and v != "-" for v in values):
        return None
    if claim == NOT_ALLOWED:
        return all(v == "-" for v in values)
    if claim == ALLOWED:
        return all(v in ALLOWS for v in values)
    # No permit at all: even a permitted use (P) needs a zoning clearance (17.22.020's legend).
    return False


def lead(claim: str, lookups, districts: tuple[str, ...]) -> str:
    """"You are right:" or "Not so:" for the permit cells an answer reads (those of the districts
    asked, when it names some); "" when the claim or the cells do not say."""
    cells = [c for c in lookups if isinstance(c, dict) and c.get("kind", "permit") == "permit"]
    if districts:
        cells = [c for c in cells if c.get("column") in districts]
    judged = verdict(claim, [str(c.get("value")) for c in cells if c.get("value") is not None])
    if judged is None:
        return ""
    return "You are right:" if judged else "Not so:"
